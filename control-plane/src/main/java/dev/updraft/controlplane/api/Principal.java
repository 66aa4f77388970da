package dev.updraft.controlplane.api;

import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.signin.Person;

/**
 * Who is calling: a token, or a person signed in to the console.
 *
 * @param actor {@code admin} for the bootstrap token, else the token id, or {@code oidc:<email>} for a person
 * @param appId null for the bootstrap token and for a person
 * @param person null unless a console session authenticated the request
 */
record Principal(String actor, boolean bootstrapAdmin, String appId, Role role, Person person) {
  static final String KEY = "updraft.principal";

  /** A person: their roles per app. */
  static Principal of(Person p) {
    return new Principal(p.actor(), false, null, null, p);
  }

  boolean mayActOn(String app) {
    return roleOn(app) != null;
  }

  /** The role on {@code app}, or null when this caller may not act on it. */
  Role roleOn(String app) {
    if (person != null) {
      return person.roleOn(app);
    }
    return bootstrapAdmin || app.equals(appId) ? role : null;
  }
}
