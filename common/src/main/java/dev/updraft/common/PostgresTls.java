package dev.updraft.common;

import io.vertx.core.net.ClientSSLOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * TLS to PostgreSQL, the same for every service that connects to it (the ingester, the control plane's
 * insights, history and patch reads): {@code --postgres-ssl-mode} ({@code disable}, {@code require},
 * {@code verify-ca}, {@code verify-full}; unset: what the URL's {@code sslmode} says, else no TLS),
 * {@code --postgres-ssl-ca FILE} (PEM: the CA that signed the server's certificate; required by the verify
 * modes), and {@code --postgres-ssl-cert FILE} with {@code --postgres-ssl-key FILE} (PEM client certificate and
 * its unencrypted PKCS#8 or PKCS#1 key) when the server asks for one. {@code verify-full} checks the server's
 * certificate names the host of {@code --postgres-url}. Files are checked at start. Immutable.
 *
 * @param mode null: left to the URL
 */
public record PostgresTls(SslMode mode, Path ca, Path cert, Path key) {
  /** The flags, without their dashes. */
  public static final Set<String> FLAGS = Set.of("postgres-ssl-mode", "postgres-ssl-ca", "postgres-ssl-cert", "postgres-ssl-key");

  /** No flag given. */
  public static final PostgresTls NONE = new PostgresTls(null, null, null, null);

  /** Reads and checks the flags. */
  public static PostgresTls from(Settings s) {
    String m = s.choice("postgres-ssl-mode", null, "disable", "require", "verify-ca", "verify-full");
    SslMode mode = m == null ? null : SslMode.of(m);
    Path ca = readable(s, "postgres-ssl-ca");
    Path cert = readable(s, "postgres-ssl-cert");
    Path key = readable(s, "postgres-ssl-key");
    if ((cert == null) != (key == null)) {
      throw new ConfigException("--postgres-ssl-cert and --postgres-ssl-key go together: give both PEM files of the client"
          + " certificate, or neither (only " + (cert == null ? "--postgres-ssl-key" : "--postgres-ssl-cert") + " was given)");
    }
    if ((mode == SslMode.VERIFY_CA || mode == SslMode.VERIFY_FULL) && ca == null) {
      throw new ConfigException("--postgres-ssl-mode " + m + " needs --postgres-ssl-ca FILE: the PEM certificate of the CA that signed"
          + " the server's (RDS: the region's bundle; Cloud SQL: the instance's server CA)");
    }
    if (mode == null && (ca != null || cert != null)) {
      throw new ConfigException("--postgres-ssl-ca and --postgres-ssl-cert need --postgres-ssl-mode (verify-full to check the server)");
    }
    if (mode == SslMode.DISABLE && (ca != null || cert != null)) {
      throw new ConfigException("--postgres-ssl-mode disable takes no --postgres-ssl-ca nor --postgres-ssl-cert");
    }
    return mode == null ? NONE : new PostgresTls(mode, ca, cert, key);
  }

  private static Path readable(Settings s, String flag) {
    Path p = s.path(flag, null);
    if (p == null) {
      return null;
    }
    try {
      String text = Files.readString(p);
      if (!text.contains("-----BEGIN ")) {
        throw new ConfigException("--" + flag + " (" + Settings.envName(flag) + ") " + p + " is not a PEM file");
      }
    } catch (IOException e) {
      throw new ConfigException("--" + flag + " (" + Settings.envName(flag) + ") " + p + " cannot be read: " + e);
    }
    return p;
  }

  /** {@code options} with this TLS applied (the same object); unchanged with {@link #NONE}. */
  public PgConnectOptions apply(PgConnectOptions options) {
    if (mode == null) {
      return options;
    }
    options.setSslMode(mode);
    if (mode == SslMode.DISABLE) {
      return options;
    }
    ClientSSLOptions ssl = new ClientSSLOptions().setHostnameVerificationAlgorithm(mode == SslMode.VERIFY_FULL ? "HTTPS" : "");
    if (ca != null) {
      ssl.setTrustOptions(new PemTrustOptions().addCertPath(ca.toString()));
    } else {
      ssl.setTrustAll(true); // require: encrypted, the server not verified (as libpq's sslmode=require without a root cert)
    }
    if (cert != null) {
      ssl.setKeyCertOptions(new PemKeyCertOptions().setCertPath(cert.toString()).setKeyPath(key.toString()));
    }
    return options.setSslOptions(ssl);
  }

  /**
   * {@code failure} of a first connection to {@code host:port} explained when it is about TLS (a certificate not
   * signed by {@code --postgres-ssl-ca}, one naming another host, a server that requires TLS): a failure naming the
   * cause and the flags to fix; else {@code failure} as it is.
   */
  public static Throwable explain(Throwable failure, String host, int port) {
    for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause()) {
      String msg = String.valueOf(c.getMessage());
      // the PostgreSQL client reports a refused certificate as "SSL handshake failed", without the JDK's reason
      if (c instanceof javax.net.ssl.SSLException || c instanceof java.security.cert.CertificateException
          || msg.contains("SSL handshake failed")) {
        return new IllegalStateException("PostgreSQL at " + host + ":" + port + ": TLS verification failed (" + msg + "): check that"
            + " --postgres-ssl-ca is the CA that signed the server's certificate and, with verify-full, that the certificate names the"
            + " host of --postgres-url", failure);
      }
      if (msg.contains("no encryption")) {
        return new IllegalStateException("PostgreSQL at " + host + ":" + port + " requires TLS (" + msg + "): give"
            + " --postgres-ssl-mode verify-full and --postgres-ssl-ca FILE", failure);
      }
    }
    return failure;
  }

  @Override
  public String toString() {
    return mode == null ? "url" : mode.value + (ca == null ? "" : " ca=" + ca) + (cert == null ? "" : " cert=" + cert);
  }
}
