/** The baseline server: the bytes captured during discovery served back by a trivial Vert.x server, the machine's ceiling. */
package dev.updraft.load.baseline;
