/**
 * Extension contracts: what another package mounts into the control plane
 * ({@link dev.updraft.controlplane.spi.ControlPlaneExtension}, given an
 * {@link dev.updraft.controlplane.spi.ExtensionContext}), and the in-process rollout entry the automatic-revert
 * guard uses ({@link dev.updraft.controlplane.spi.RolloutControl}, {@link dev.updraft.controlplane.spi.ActiveRollout}).
 */
package dev.updraft.controlplane.spi;
