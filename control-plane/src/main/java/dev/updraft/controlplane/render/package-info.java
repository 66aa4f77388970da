/**
 * Manifest and directive JSON exactly as protocol.md section 3 asks, rendered once at publish time. The
 * strings produced here are what gets signed and what edges serve byte for byte; nothing downstream
 * re-serializes them.
 */
package dev.updraft.controlplane.render;
