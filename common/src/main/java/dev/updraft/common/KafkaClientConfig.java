package dev.updraft.common;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The Kafka client settings of {@code --kafka-config FILE} ({@code UPDRAFT_KAFKA_CONFIG}): a Java properties
 * file, the convention of Kafka's own tools ({@code --command-config}), applied to every producer, consumer
 * and admin client of a service. It carries what the cluster asks of its clients ({@code security.protocol},
 * {@code sasl.*}, {@code ssl.*}, connection tuning) and may keep secrets out of the file with Kafka's config
 * providers ({@code config.providers=env,file} and {@code ${env:VAR}}, {@code ${file:path:key}}), which the
 * clients resolve themselves.
 *
 * <p>Keys Updraft's guarantees rest on, or that Updraft sets for each client itself, are refused at load
 * with the key named ({@link #REFUSED}); so are variables no provider resolves. Values are never printed:
 * {@link #toString()} shows the file and its keys only. Immutable and thread-safe.
 */
public final class KafkaClientConfig {
  /** The flag, without its dashes. */
  public static final String FLAG = "kafka-config";

  /** Keys a file may not set, each with the reason the refusal gives. */
  public static final Map<String, String> REFUSED = refused();

  private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}:]*):([^}]*)}");
  private static final KafkaClientConfig NONE = new KafkaClientConfig(null, Map.of());

  private final Path file;
  private final Map<String, String> settings;

  private KafkaClientConfig(Path file, Map<String, String> settings) {
    this.file = file;
    this.settings = Collections.unmodifiableMap(new TreeMap<>(settings));
  }

  /** No settings: a plaintext, anonymous client (the embedded broker of {@code dev}, tests). */
  public static KafkaClientConfig none() {
    return NONE;
  }

  /** The file named by {@code --kafka-config}, or {@link #none()} when the flag is not given. */
  public static KafkaClientConfig from(Settings s) {
    Path p = s.path(FLAG, null);
    return p == null ? NONE : load(p);
  }

  /**
   * Reads and checks a file.
   *
   * @throws ConfigException naming the file and the key: unreadable, a refused key, an unresolved variable
   */
  public static KafkaClientConfig load(Path file) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException | IllegalArgumentException e) {
      throw new ConfigException(where(file) + " cannot be read: " + e.getMessage());
    }
    Map<String, String> m = new LinkedHashMap<>();
    for (String k : p.stringPropertyNames()) {
      m.put(k.trim(), p.getProperty(k).trim());
    }
    return of(file, m);
  }

  /** Settings given as a map (tests, and a file already read); checked as {@link #load} checks a file. */
  public static KafkaClientConfig of(Path file, Map<String, String> settings) {
    for (String k : new TreeSet<>(settings.keySet())) {
      String why = REFUSED.get(k);
      if (why != null) {
        throw new ConfigException(where(file) + " sets " + k + ", which Updraft does not let a file change: " + why);
      }
    }
    checkVariables(file, settings);
    return new KafkaClientConfig(file, settings);
  }

  private static void checkVariables(Path file, Map<String, String> settings) {
    Map<String, Object> resolved;
    try {
      resolved = new AbstractConfig(new ConfigDef(), settings, false).originals();
    } catch (RuntimeException e) {
      throw new ConfigException(where(file) + ": its config.providers cannot be set up: " + e.getMessage());
    }
    for (Map.Entry<String, String> e : new TreeMap<>(settings).entrySet()) {
      Object v = resolved.get(e.getKey());
      Matcher m = VARIABLE.matcher(v == null ? "" : v.toString());
      if (m.find() && e.getValue().contains(m.group())) {
        throw new ConfigException(where(file) + ": " + m.group() + " in " + e.getKey() + " is not resolved: "
            + (settings.containsKey("config.providers")
                ? "is the provider '" + m.group(1) + "' listed in config.providers, and does it know '" + m.group(2) + "'?"
                : "the file names no config.providers (e.g. config.providers=env with config.providers.env.class="
                    + "org.apache.kafka.common.config.provider.EnvVarConfigProvider)"));
      }
    }
  }

  private static String where(Path file) {
    return "--" + FLAG + " (" + Settings.envName(FLAG) + ") " + (file == null ? "settings" : file.toString());
  }

  /** The file, or null for {@link #none()}. */
  public Path file() {
    return file;
  }

  /** The settings as written (variables unresolved). */
  public Map<String, String> settings() {
    return settings;
  }

  /**
   * A client's own properties with this file's settings added.
   *
   * @throws IllegalStateException if the client sets a key the file sets too (a key missing from {@link #REFUSED})
   */
  public Properties apply(Properties own) {
    Properties out = new Properties();
    out.putAll(settings);
    for (Map.Entry<Object, Object> e : own.entrySet()) {
      if (settings.containsKey(e.getKey().toString())) {
        throw new IllegalStateException(where(file) + " sets " + e.getKey() + ", which this client sets itself");
      }
      out.put(e.getKey(), e.getValue());
    }
    return out;
  }

  /** Like {@link #apply(Properties)} for a client configured with a map. */
  public Map<String, Object> apply(Map<String, Object> own) {
    Map<String, Object> out = new LinkedHashMap<>(settings);
    for (Map.Entry<String, Object> e : own.entrySet()) {
      if (settings.containsKey(e.getKey())) {
        throw new IllegalStateException(where(file) + " sets " + e.getKey() + ", which this client sets itself");
      }
      out.put(e.getKey(), e.getValue());
    }
    return out;
  }

  /** The file and its keys, never a value. */
  @Override
  public String toString() {
    return file == null ? "none" : file + " " + settings.keySet();
  }

  private static Map<String, String> refused() {
    Map<String, String> m = new TreeMap<>();
    String flag = "give it with the flag ";
    m.put("bootstrap.servers", flag + "--kafka-bootstrap");
    m.put("group.id", flag + "--consumer-group or --history-consumer-group (ingester); edges and the control plane use no group");
    m.put("transactional.id", flag + "--transactional-id (control plane); it is what fences a second writer");
    m.put("client.id", "Updraft names each client (logs, quotas by principal still apply)");
    String noLoss = "a publish or check-in Updraft acknowledged must be on every in-sync replica, once and in order";
    for (String k : new String[] {"acks", "enable.idempotence", "max.in.flight.requests.per.connection", "retries",
        "delivery.timeout.ms", "transaction.timeout.ms", "transaction.two.phase.commit.enable"}) {
      m.put(k, noLoss);
    }
    String committed = "Updraft reads only committed events and stores its own positions (offsets in the same transaction)";
    for (String k : new String[] {"isolation.level", "enable.auto.commit", "auto.commit.interval.ms", "auto.offset.reset",
        "group.instance.id"}) {
      m.put(k, committed);
    }
    String bytes = "records are Updraft's own bytes";
    for (String k : new String[] {"key.serializer", "value.serializer", "key.deserializer", "value.deserializer", "check.crcs"}) {
      m.put(k, bytes);
    }
    String order = "events of one app must stay in one partition, in order, unchanged";
    for (String k : new String[] {"partitioner.class", "partitioner.ignore.keys", "interceptor.classes"}) {
      m.put(k, order);
    }
    m.put("allow.auto.create.topics", "the control plane creates the topics with their retention and replication");
    String bounds = "Updraft sets it for each client: its readiness, batching and fencing bounds rest on it";
    for (String k : new String[] {"max.poll.records", "session.timeout.ms", "fetch.max.wait.ms", "linger.ms", "batch.size",
        "buffer.memory", "compression.type", "max.request.size", "max.block.ms", "request.timeout.ms",
        "default.api.timeout.ms", "fetch.min.bytes", "max.partition.fetch.bytes"}) {
      m.put(k, bounds);
    }
    return Collections.unmodifiableMap(m);
  }
}
