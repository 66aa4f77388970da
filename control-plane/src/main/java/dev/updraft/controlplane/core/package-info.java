/**
 * What every layer of the control plane may use: {@link dev.updraft.controlplane.core.Role} (what a token may do)
 * and {@link dev.updraft.controlplane.core.CommandException} (the one refusal: status, code, message). Imports
 * nothing of the control plane.
 */
package dev.updraft.controlplane.core;
