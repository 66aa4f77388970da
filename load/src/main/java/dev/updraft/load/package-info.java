/**
 * The load module: an open-model fleet simulator ({@code run}), traffic replay ({@code replay}), the
 * baseline server ({@code baseline}), report rendering ({@code report}) and the cost-of-scale event-log
 * generator ({@code events}). The public surface is {@link dev.updraft.load.LoadCommand} (called by the
 * launcher) and {@link dev.updraft.load.LoadMain}; everything else is package-private. See
 * {@code load/README.md} for the model, the flags and the result files.
 */
package dev.updraft.load;
