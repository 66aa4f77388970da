package dev.updraft.controlplane.signin;

import dev.updraft.controlplane.core.Role;
import java.time.Instant;
import java.util.Map;

/**
 * A person signed in through the OIDC provider, as their session holds them: roles were mapped at sign-in
 * ({@link RoleMap}) and last until the session ends. Immutable.
 *
 * @param subject the provider's {@code sub}
 * @param email nullable: the verified email
 * @param roles app id, or {@code *} for every app, to role
 */
public record Person(String subject, String email, String name, Map<String, Role> roles, Instant expiresAt) {
  public Person {
    roles = Map.copyOf(roles);
  }

  /** The role this person has on {@code app}, or null. */
  public Role roleOn(String app) {
    Role own = roles.get(app);
    Role all = roles.get("*");
    if (own == null) {
      return all;
    }
    return all == null || own.allows(all) ? own : all;
  }

  /** Who the audit log says acted: {@code oidc:} and the email, else the subject. */
  public String actor() {
    return "oidc:" + (email != null ? email : subject);
  }
}
