/** The simulated devices (seeded fleet) and the update each one should be served, learned from discovery and the answers. */
package dev.updraft.load.fleet;
