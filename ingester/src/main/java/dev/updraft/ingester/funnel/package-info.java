/**
 * The download funnel per update: which stage each device reached (served the update, fetched its launch asset in
 * full or as a patch, launched it, reported it failed), one row per (app, update, stage, device) in
 * {@code update_funnel} (V12), the first time it was seen. The consumer's batch hands every check-in to
 * {@link dev.updraft.ingester.funnel.FunnelRows} and writes its rows in its transaction, but those the process knows
 * written already ({@link dev.updraft.ingester.funnel.FunnelKeys}, told apart from deletions by V14's count).
 */
package dev.updraft.ingester.funnel;
