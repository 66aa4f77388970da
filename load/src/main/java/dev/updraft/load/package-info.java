/**
 * The load module: an open-model fleet simulator ({@code run}), traffic replay ({@code replay}), the
 * baseline server ({@code baseline}), report rendering ({@code report}) and the cost-of-scale event-log
 * generator ({@code events}). The module's public surface is {@link dev.updraft.load.LoadCommand}
 * (called by the launcher) and {@link dev.updraft.load.LoadMain}. Inside, one package per concept, each
 * exposing only what another package reads:
 *
 * <ul>
 *   <li>{@link dev.updraft.load.traffic}: profiles, their windows and the arrival times (uniform, Poisson);
 *   <li>{@link dev.updraft.load.check}: is one answer a valid Expo response (framing, manifest, directive, signature);
 *   <li>{@link dev.updraft.load.fleet}: the simulated devices and the update each should get;
 *   <li>{@link dev.updraft.load.run}: one run (discovery, scheduler, lanes, samplers, push trigger) and its result;
 *   <li>{@link dev.updraft.load.replay}: recorded requests as arrivals;
 *   <li>{@link dev.updraft.load.report}: the summary JSON (capacity, knee) and the HTML report;
 *   <li>{@link dev.updraft.load.baseline}: the server of captured bytes;
 *   <li>{@link dev.updraft.load.events}: the generated event log.
 * </ul>
 *
 * See {@code load/README.md} for the model, the flags and the result files.
 */
package dev.updraft.load;
