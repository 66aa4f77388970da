/** The traffic of a run: profiles (phases of linear stages), their windows, and the arrival times computed from them. */
package dev.updraft.load.traffic;
