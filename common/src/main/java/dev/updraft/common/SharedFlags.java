package dev.updraft.common;

/**
 * Flag groups several services share, declared once and included in each service's {@link FlagTable}; their
 * values are read by {@link KafkaClientConfig}, {@link PostgresTls} and {@link MetricsAccess}.
 */
public final class SharedFlags {
  private SharedFlags() {}

  /** {@code --kafka-bootstrap}, {@code --kafka-config} and {@code --topic-prefix}. */
  public static FlagTable kafka() {
    FlagTable.Builder t = FlagTable.builder();
    t.text("kafka-bootstrap", "127.0.0.1:9092", "Kafka bootstrap servers.");
    t.path(KafkaClientConfig.FLAG, "none", "Kafka client properties (TLS, SASL) for every producer, consumer and admin client; keys the"
        + " guarantees rest on are refused at start: see [Secured Kafka](#secured-kafka).");
    t.text("topic-prefix", "", "Put in front of every topic name (`updraft.events`, `updraft.telemetry`, ...): several deployments"
        + " on one cluster.");
    return t.build();
  }

  /** {@code --postgres-url} and the {@code --postgres-ssl-*} flags. */
  public static FlagTable postgres() {
    FlagTable.Builder t = FlagTable.builder();
    t.text("postgres-url", "postgresql://postgres@127.0.0.1:5432/updraft",
        "`postgresql://user:password@host:5432/db`; the password never appears in logs.");
    t.custom("postgres-ssl-mode", "the URL's `sslmode`, else none", "disable \\| require \\| verify-ca \\| verify-full",
        "`disable`, `require` (encrypted, the server not checked), `verify-ca` (signed by `--postgres-ssl-ca`), `verify-full` (and the"
            + " certificate names the host of `--postgres-url`): use `verify-full`. See [PostgreSQL over TLS](#postgresql-over-tls).");
    t.path("postgres-ssl-ca", "none", "PEM file of the CA that signed the server's certificate; required by the verify modes.");
    t.path("postgres-ssl-cert", "none", "PEM client certificate, when the server asks for one (with `--postgres-ssl-key`).");
    t.path("postgres-ssl-key", "none", "Its unencrypted key (PEM, PKCS#8 or PKCS#1).");
    return t.build();
  }

  /**
   * {@code --metrics-token}, {@code --metrics-token-file} and {@code --metrics-port}; {@code portDefault},
   * {@code portUnit} and {@code portMeaning} as the service serves metrics.
   */
  public static FlagTable metrics(String portDefault, String portUnit, String portMeaning) {
    FlagTable.Builder t = FlagTable.builder();
    t.custom("metrics-token", "none (public)", "secret, at least 16 characters", "`/metrics` answers only `Authorization: Bearer <token>`;"
        + " without it or with another token, 401. Compared in constant time, never logged; not the admin token. See"
        + " [Who may read /metrics](#who-may-read-metrics).");
    t.path("metrics-token-file", "none", "A file holding that token (a mounted secret); instead of `--metrics-token`, not with it."
        + " Read once at start.");
    t.custom(MetricsAccess.PORT_FLAG, portDefault, portUnit, portMeaning);
    return t.build();
  }
}
