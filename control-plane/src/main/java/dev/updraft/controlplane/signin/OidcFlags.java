package dev.updraft.controlplane.signin;

import dev.updraft.common.ConfigException;
import dev.updraft.common.FlagTable;
import dev.updraft.common.Settings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The {@code --oidc-*} flags: console sign-in with an OIDC provider, off unless {@code --oidc-issuer} is given, then
 * {@code --oidc-client-id}, {@code --oidc-roles FILE} ({@link RoleMap}) and {@code --oidc-redirect-base-url} (this
 * control plane's public URL as browsers reach it; the provider redirects to {@code <it>/v1/auth/oidc/callback}) are
 * required. The client secret (none for a public client, which PKCE protects) comes from
 * {@code --oidc-client-secret-file} or the environment variable {@code UPDRAFT_OIDC_CLIENT_SECRET}, never from a flag
 * value. {@code --oidc-session-max-age} [8h, 5m..7d], {@code --oidc-scopes} [openid email profile],
 * {@code --oidc-groups-claim} [groups]. The issuer and the redirect base must be https, except on a loopback host
 * (development): session cookies are {@code Secure} exactly when the redirect base is https. The secret never
 * appears in {@link #toString()}. Immutable.
 */
public record OidcFlags(
    String issuer, String clientId, String clientSecret, RoleMap roles, String redirectBaseUrl, Duration sessionMaxAge,
    String scopes, String groupsClaim) {
  /** The {@code --oidc-*} flags, declared once: the control plane's table includes them. */
  public static final FlagTable TABLE = table();

  public static final Set<String> NAMES = TABLE.names();

  private static FlagTable table() {
    FlagTable.Builder t = FlagTable.builder();
    t.custom("oidc-issuer", "none (off)", "https URL",
        "The provider's issuer URL; its discovery document is read from"
        + " `<issuer>/.well-known/openid-configuration` at the first sign-in (and again after a failure), and"
        + " must name this issuer. https, except on a loopback host. Console sign-in is off without it.");
    t.custom("oidc-client-id", "required with the issuer", "text",
        "The client id registered at the provider (the ID token's audience).");
    t.path("oidc-client-secret-file", "none",
        "A file holding the client secret (a mounted secret). Or the environment variable"
        + " `UPDRAFT_OIDC_CLIENT_SECRET`; never a flag value (`--oidc-client-secret` is refused as unknown, so"
        + " the secret never shows in a process list). Without either the control plane is a public client,"
        + " protected by PKCE. Sent by HTTP Basic, or in the form when the provider only takes"
        + " `client_secret_post`.");
    t.custom("oidc-roles", "required with the issuer", "path",
        "The role mapping file (see [Console sign-in with an OIDC provider](#console-sign-in-with-an-oidc-provider));"
        + " checked at start, a bad line stops it naming the line. Read once:"
        + " restart to change it (sessions then keep the roles they were opened with until they end).");
    t.custom("oidc-redirect-base-url", "required with the issuer", "https URL",
        "This control plane's URL as browsers reach it (`https://updraft.example.com`); the callback is under"
        + " it, the console's origin is it (the CSRF check compares `Origin` with it), and cookies are `Secure`"
        + " exactly when it is https. https, except on a loopback host (plain-HTTP development).");
    t.duration("oidc-session-max-age", Duration.ofHours(8), Duration.ofMinutes(5), Duration.ofDays(7),
        "A session ends this long after sign-in, whatever is done with it; then sign in again.");
    t.text("oidc-scopes", "openid email profile",
        "Scopes asked for; must include `openid`.");
    t.text("oidc-groups-claim", "groups",
        "The ID token claim holding the person's groups (a list of strings, or one string). Entra ID puts"
        + " group object ids there.");
    return t.build();
  }

  /** Off: no sign-in with a provider. */
  public static final OidcFlags OFF = new OidcFlags(null, null, null, null, null, Duration.ofHours(8), null, null);

  public static OidcFlags from(Settings s) {
    String issuer = s.raw("oidc-issuer");
    if (issuer == null) {
      for (String n : NAMES) {
        if (s.raw(n) != null) {
          throw new ConfigException("--" + n + " (" + Settings.envName(n) + ") needs --oidc-issuer (UPDRAFT_OIDC_ISSUER)");
        }
      }
      if (s.raw("oidc-client-secret") != null) {
        throw new ConfigException("UPDRAFT_OIDC_CLIENT_SECRET needs --oidc-issuer (UPDRAFT_OIDC_ISSUER)");
      }
      return OFF;
    }
    String clientId = s.raw("oidc-client-id");
    String rolesFile = s.raw("oidc-roles");
    String base = s.raw("oidc-redirect-base-url");
    if (clientId == null || rolesFile == null || base == null) {
      throw new ConfigException("--oidc-issuer needs --oidc-client-id (UPDRAFT_OIDC_CLIENT_ID), --oidc-roles FILE (UPDRAFT_OIDC_ROLES)"
          + " and --oidc-redirect-base-url (UPDRAFT_OIDC_REDIRECT_BASE_URL, this control plane's URL as browsers reach it)");
    }
    String iss = httpsUnlessLoopback("oidc-issuer", issuer);
    String redirect = httpsUnlessLoopback("oidc-redirect-base-url", base);
    Duration maxAge = s.duration("oidc-session-max-age", Duration.ofHours(8));
    if (maxAge.compareTo(Duration.ofMinutes(5)) < 0 || maxAge.compareTo(Duration.ofDays(7)) > 0) {
      throw new ConfigException("--oidc-session-max-age (UPDRAFT_OIDC_SESSION_MAX_AGE) must be between 5m and 7d: got " + maxAge);
    }
    String scopes = s.string("oidc-scopes", "openid email profile");
    if (!List.of(scopes.split("\\s+")).contains("openid")) {
      throw new ConfigException("--oidc-scopes (UPDRAFT_OIDC_SCOPES) must include openid: got '" + scopes + "'");
    }
    return new OidcFlags(iss, clientId, secret(s), RoleMap.read(Path.of(rolesFile)), redirect, maxAge, scopes,
        s.string("oidc-groups-claim", "groups"));
  }

  private static String secret(Settings s) {
    String file = s.raw("oidc-client-secret-file");
    String env = s.raw("oidc-client-secret");
    if (file != null && env != null) {
      throw new ConfigException("give the OIDC client secret once: --oidc-client-secret-file or UPDRAFT_OIDC_CLIENT_SECRET, not both");
    }
    if (file == null) {
      return env;
    }
    try {
      String v = Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
      if (v.isEmpty()) {
        throw new ConfigException("--oidc-client-secret-file " + file + " is empty");
      }
      return v;
    } catch (IOException e) {
      throw new ConfigException("--oidc-client-secret-file (UPDRAFT_OIDC_CLIENT_SECRET_FILE): cannot read " + file + ": " + e.getMessage());
    }
  }

  private static String httpsUnlessLoopback(String flag, String value) {
    String v = Settings.httpUrl(flag, value);
    URI u = URI.create(v);
    if (!"https".equals(u.getScheme()) && !loopback(u.getHost())) {
      throw new ConfigException("--" + flag + " (" + Settings.envName(flag) + ") must be https (plain http only on a loopback host, for"
          + " development): got '" + value + "'");
    }
    return v;
  }

  private static boolean loopback(String host) {
    if ("localhost".equals(host)) {
      return true;
    }
    String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    if (!h.matches("[0-9.]+|[0-9a-fA-F:]+")) {
      return false; // a name: never resolved here
    }
    try {
      return InetAddress.getByName(h).isLoopbackAddress();
    } catch (IOException e) {
      return false;
    }
  }

  /** Whether sign-in with a provider is on. */
  public boolean enabled() {
    return issuer != null;
  }

  /** Whether cookies carry {@code Secure} (the console is reached over https). */
  public boolean secureCookies() {
    return redirectBaseUrl != null && redirectBaseUrl.startsWith("https:");
  }

  @Override
  public String toString() {
    return enabled()
        ? "oidc{issuer=" + issuer + ", clientId=" + clientId + ", clientSecret=" + (clientSecret == null ? "none" : "<redacted>")
            + ", roles=" + roles.size() + " rules, redirectBaseUrl=" + redirectBaseUrl + ", sessionMaxAge=" + sessionMaxAge + "}"
        : "oidc=off";
  }
}
