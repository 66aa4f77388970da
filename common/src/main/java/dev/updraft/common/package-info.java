/**
 * Plumbing shared by every Updraft module: typed configuration from flags and environment variables, and
 * the extension → content-type table; no dependencies beyond the JDK.
 */
package dev.updraft.common;
