package dev.updraft.controlplane.api;

import dev.updraft.controlplane.core.Role;

/**
 * Who is calling.
 *
 * @param actor {@code admin} for the bootstrap token, else the token id
 * @param appId null for the bootstrap token
 */
record Principal(String actor, boolean bootstrapAdmin, String appId, Role role) {
  static final String KEY = "updraft.principal";

  boolean mayActOn(String app) {
    return bootstrapAdmin || app.equals(appId);
  }
}
