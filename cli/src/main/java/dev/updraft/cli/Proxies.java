package dev.updraft.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The proxy the CLI reaches the control plane through, from the environment as curl reads it (Java reads
 * none of it): {@code HTTPS_PROXY} for an {@code https://} server, {@code HTTP_PROXY} for {@code http://} (the
 * lower-case names too, which win), unless {@code NO_PROXY} names the server's host ({@code *}, a host, or a
 * domain and its subdomains, with or without a leading dot). A proxy is {@code http://host:port} or
 * {@code host:port}, optionally with {@code user:password@} (Basic, sent to the proxy only).
 *
 * @param address the proxy
 * @param from the variable it came from, for messages
 * @param user nullable
 * @param password nullable
 */
record Proxies(InetSocketAddress address, String from, String user, String password) {

  /** The proxy for {@code server}, or null to connect directly. */
  static Proxies of(Map<String, String> env, URI server) throws CliException {
    String scheme = server.getScheme() == null ? "http" : server.getScheme().toLowerCase(Locale.ROOT);
    String name = "https".equals(scheme) ? "https_proxy" : "http_proxy";
    String from = env.containsKey(name) ? name : name.toUpperCase(Locale.ROOT);
    String value = env.get(from);
    if (value == null || value.isBlank() || bypassed(env, server.getHost())) {
      return null;
    }
    String v = value.trim();
    URI u;
    try {
      u = new URI(v.contains("://") ? v : "http://" + v);
    } catch (URISyntaxException e) {
      throw CliException.usage(from + "=" + v + " is not a proxy address (http://host:port): " + e.getMessage());
    }
    if (!"http".equalsIgnoreCase(u.getScheme())) {
      throw CliException.usage(from + "=" + v + ": only an http:// proxy is supported (it tunnels https:// with CONNECT)");
    }
    if (u.getHost() == null) {
      throw CliException.usage(from + "=" + v + " names no host (http://host:port)");
    }
    String user = null;
    String password = null;
    if (u.getRawUserInfo() != null) {
      String[] parts = u.getUserInfo().split(":", 2);
      user = parts[0];
      password = parts.length > 1 ? parts[1] : "";
    }
    return new Proxies(InetSocketAddress.createUnresolved(u.getHost(), u.getPort() > 0 ? u.getPort() : 80), from, user, password);
  }

  /** Whether {@code NO_PROXY} (or {@code no_proxy}) names {@code host}. */
  static boolean bypassed(Map<String, String> env, String host) {
    String list = env.containsKey("no_proxy") ? env.get("no_proxy") : env.get("NO_PROXY");
    if (list == null || host == null) {
      return false;
    }
    String h = host.toLowerCase(Locale.ROOT);
    for (String entry : list.split(",")) {
      String e = entry.trim().toLowerCase(Locale.ROOT);
      int colon = e.lastIndexOf(':');
      if (colon > 0 && e.indexOf(':') == colon) {
        e = e.substring(0, colon); // a port: curl ignores it too
      }
      if (e.startsWith(".")) {
        e = e.substring(1);
      }
      if (e.equals("*") || (!e.isEmpty() && (h.equals(e) || h.endsWith("." + e)))) {
        return true;
      }
    }
    return false;
  }

  /** Routes every request through this proxy. */
  ProxySelector selector() {
    Proxy p = new Proxy(Proxy.Type.HTTP, address);
    return new ProxySelector() {
      @Override
      public List<Proxy> select(URI uri) {
        return List.of(p);
      }

      @Override
      public void connectFailed(URI uri, SocketAddress sa, IOException ioe) {}
    };
  }

  /** Answers the proxy's challenge with the credentials of the proxy address; null without them. */
  java.net.Authenticator authenticator() {
    if (user == null) {
      return null;
    }
    // the JDK refuses Basic for a CONNECT tunnel (an https:// server) unless told otherwise, before its first use
    if (System.getProperty("jdk.http.auth.tunneling.disabledSchemes") == null) {
      System.setProperty("jdk.http.auth.tunneling.disabledSchemes", "");
    }
    return new java.net.Authenticator() {
      @Override
      protected PasswordAuthentication getPasswordAuthentication() {
        return getRequestorType() == RequestorType.PROXY ? new PasswordAuthentication(user, password.toCharArray()) : null;
      }
    };
  }

  /** For messages: "through the proxy host:port (HTTPS_PROXY)". */
  String describe() {
    return "through the proxy " + address.getHostString() + ":" + address.getPort() + " (" + from + ")";
  }
}
