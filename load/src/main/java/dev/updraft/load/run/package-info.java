/**
 * One open-model run against the targets: {@link dev.updraft.load.run.LoadRun} (discovery, scheduler,
 * lanes, reporter, samplers, push trigger), its configuration and what it measured
 * ({@link dev.updraft.load.run.RunResult}, {@link dev.updraft.load.run.Timeseries}).
 */
package dev.updraft.load.run;
