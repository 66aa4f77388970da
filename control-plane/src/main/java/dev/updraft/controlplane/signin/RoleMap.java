package dev.updraft.controlplane.signin;

import dev.updraft.common.ConfigException;
import dev.updraft.controlplane.core.Role;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Who gets which role on which app, from the {@code --oidc-roles} file: one rule a line, three fields separated by
 * spaces, {@code group:<name>} or {@code email:<address>}, an app id or {@code *} (every app), and a role
 * ({@code read}, {@code publish}, {@code admin}); {@code #} starts a comment. A person gets, per app, the highest role
 * of every rule their groups claim or their (verified) email matches; emails compare without case. No rule makes a
 * person the bootstrap admin: creating apps stays with the admin token. Immutable.
 */
public final class RoleMap {
  private static final Pattern APP = Pattern.compile("\\*|[a-z0-9][a-z0-9-]{0,62}");

  private record Rule(boolean group, String who, String app, Role role) {}

  private final List<Rule> rules;

  private RoleMap(List<Rule> rules) {
    this.rules = List.copyOf(rules);
  }

  /** Reads and checks {@code file}; a bad line fails with its number and what is wrong with it. */
  public static RoleMap read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException("--oidc-roles (UPDRAFT_OIDC_ROLES): cannot read " + file + ": " + e.getMessage());
    }
    return parse(lines, file.toString());
  }

  static RoleMap parse(List<String> lines, String source) {
    List<Rule> rules = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      int hash = line.indexOf('#');
      String body = (hash >= 0 ? line.substring(0, hash) : line).trim();
      if (body.isEmpty()) {
        continue;
      }
      String where = "--oidc-roles " + source + " line " + (i + 1) + ": ";
      String[] f = body.split("\\s+");
      if (f.length != 3) {
        throw new ConfigException(where + "expected 'group:<name>|email:<address> <app|*> <read|publish|admin>', got '" + body + "'");
      }
      boolean group = f[0].startsWith("group:");
      if (!group && !f[0].startsWith("email:")) {
        throw new ConfigException(where + "the first field must start with group: or email:, got '" + f[0] + "'");
      }
      String who = f[0].substring(f[0].indexOf(':') + 1);
      if (who.isEmpty()) {
        throw new ConfigException(where + "'" + f[0] + "' names no group or email");
      }
      if (!APP.matcher(f[1]).matches()) {
        throw new ConfigException(where + "'" + f[1] + "' is neither an app id nor *");
      }
      Role role = Role.of(f[2]);
      if (role == null) {
        throw new ConfigException(where + "unknown role '" + f[2] + "' (read, publish or admin)");
      }
      rules.add(new Rule(group, group ? who : who.toLowerCase(Locale.ROOT), f[1], role));
    }
    if (rules.isEmpty()) {
      throw new ConfigException("--oidc-roles " + source + " has no rule: nobody could sign in");
    }
    return new RoleMap(rules);
  }

  /** How many rules the file has (for the start log). */
  public int size() {
    return rules.size();
  }

  /**
   * The roles of a person with {@code email} (null when absent or unverified) and {@code groups}: app id (or
   * {@code *}) to role; empty when no rule matches.
   */
  Map<String, Role> grants(String email, Collection<String> groups) {
    String mail = email == null ? null : email.toLowerCase(Locale.ROOT);
    Map<String, Role> out = new LinkedHashMap<>();
    for (Rule r : rules) {
      boolean match = r.group() ? groups.contains(r.who()) : r.who().equals(mail);
      if (match) {
        out.merge(r.app(), r.role(), (a, b) -> a.allows(b) ? a : b);
      }
    }
    return out;
  }
}
