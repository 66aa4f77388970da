/**
 * The one loop runner of the services' dedicated threads ({@link dev.updraft.common.loop.LoopRunner}, after
 * Agrona's {@code AgentRunner}): a {@link dev.updraft.common.loop.LoopAgent} does one duty cycle at a time; the
 * runner idles between empty cycles, counts, logs and backs off on errors, and stops on request, on interrupt or on
 * an {@link java.lang.Error}, all on an injected {@link dev.updraft.common.loop.LoopClock}.
 */
package dev.updraft.common.loop;
