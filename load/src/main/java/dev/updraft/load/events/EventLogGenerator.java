package dev.updraft.load.events;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.EventType;
import dev.updraft.events.Topics;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Generates a realistic event log for the "cost of scale" scenario: per app an {@code app.created}, one
 * {@code channel.mapped} per channel (to the branch of the same name), and per (branch, runtime version)
 * a number of {@code update.published} groups with one update per platform, each carrying a rendered
 * manifest body of realistic size (launch asset, N assets with base64url SHA-256 hashes, an
 * {@code expoClient} config) and a well-formed signature value. Deterministic from the seed; written
 * with {@link EventCodec} to a JSON-lines file and/or a Kafka topic (key = app id, as the control plane
 * writes it). Sequences are per app and gap-free.
 *
 * <p>For the state-at-scale benchmark ({@code load/bench/state-scale.sh}): {@code --publishes N} spreads N
 * historical publishes over every app's lines (so a line holds N / (apps x channels x runtime versions)
 * groups, of which edges keep a handful), {@code --rollout-every K} makes every K-th publish of a line a
 * rollout finished before the next, and {@code --signing-key} signs every app's answers.
 */
public final class EventLogGenerator {
  public static final Set<String> FLAGS = Set.of(
      "apps", "channels", "runtime-versions", "updates", "assets-per-update", "platforms", "seed", "out",
      "kafka-bootstrap", KafkaClientConfig.FLAG, "topic-prefix", "public-url", "start", "publishes", "rollout-every", "signing-key");

  private static final DateTimeFormatter CREATED_AT =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /**
   * @param updates publishes per (branch, runtime version) when {@code publishes} is 0
   * @param publishes 0, or the historical publishes over all apps (spread evenly over every app's lines)
   * @param rolloutEvery 0, or every this many publishes of a line is a per-update rollout at 10 % (its
   *     control the line's previous group), finished before the line's next publish
   * @param signingKey every app registers a signing key first (its answers are signed)
   */
  public record Spec(int apps, int channels, int runtimes, int updates, int assets, List<String> platforms, long seed,
      String publicUrl, Instant start, long publishes, int rolloutEvery, boolean signingKey) {
    /** A spec with {@code updates} per line, no rollouts and no key (as before {@code --publishes}). */
    public Spec(int apps, int channels, int runtimes, int updates, int assets, List<String> platforms, long seed, String publicUrl,
        Instant start) {
      this(apps, channels, runtimes, updates, assets, platforms, seed, publicUrl, start, 0, 0, false);
    }

    /** The publishes over all apps. */
    long totalPublishes() {
      return publishes > 0 ? publishes : (long) apps * channels * runtimes * updates;
    }

    /** Publishes of line {@code line} (0-based over all apps' lines). */
    long publishesOf(long line) {
      if (publishes <= 0) {
        return updates;
      }
      long lines = (long) apps * channels * runtimes;
      return publishes / lines + (line < publishes % lines ? 1 : 0);
    }
  }

  /** What was written. */
  public record Written(long events, long bytes, int apps) {}

  private EventLogGenerator() {}

  public static Spec spec(Settings s) {
    List<String> platforms = List.of(s.string("platforms", "ios,android").split(","));
    for (String p : platforms) {
      if (!p.equals("ios") && !p.equals("android")) {
        throw new ConfigException("--platforms takes ios and android: got '" + p + "'");
      }
    }
    Instant start;
    try {
      start = Instant.parse(s.string("start", "2026-01-01T00:00:00Z"));
    } catch (java.time.format.DateTimeParseException e) {
      throw new ConfigException("--start must be an instant like 2026-01-01T00:00:00Z: got '" + s.raw("start") + "'");
    }
    return new Spec(
        s.integer("apps", 1000, 1, 1_000_000),
        s.integer("channels", 3, 1, 1000),
        s.integer("runtime-versions", 3, 1, 1000),
        s.integer("updates", 2, 1, 10_000),
        s.integer("assets-per-update", 12, 0, 20_000),
        platforms,
        s.longValue("seed", 42, Long.MIN_VALUE, Long.MAX_VALUE),
        s.string("public-url", "http://127.0.0.1:8080"),
        start,
        s.longValue("publishes", 0, 0, 100_000_000),
        s.integer("rollout-every", 0, 0, 1_000_000),
        s.bool("signing-key", false));
  }

  /** Generates every event in log order and hands each to {@code sink}. */
  static void generate(Spec spec, Consumer<EventEnvelope> sink) {
    SplittableRandom r = new SplittableRandom(spec.seed());
    long ms = spec.start().toEpochMilli();
    long line = 0;
    for (int a = 0; a < spec.apps(); a++) {
      String app = String.format("app-%05d", a);
      long[] seq = {1};
      sink.accept(envelope(r, app, seq[0]++, Instant.ofEpochMilli(ms++), new EventPayload.AppCreated("App " + a)));
      if (spec.signingKey()) {
        String sig = "sig=\"" + Base64.getEncoder().encodeToString(bytes(r, 256)) + "\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"";
        sink.accept(envelope(r, app, seq[0]++, Instant.ofEpochMilli(ms++), new EventPayload.SigningKeyRegistered("main",
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", HexFormat.of().formatHex(bytes(r, 32)),
            "{\"type\":\"noUpdateAvailable\"}", sig, List.of(), null, true)));
      }
      List<String> channels = new ArrayList<>();
      for (int c = 0; c < spec.channels(); c++) {
        String ch = c == 0 ? "production" : c == 1 ? "staging" : "channel-" + c;
        channels.add(ch);
        sink.accept(envelope(r, app, seq[0]++, Instant.ofEpochMilli(ms++), new EventPayload.ChannelMapped(ch, ch, null)));
      }
      for (String branch : channels) {
        for (int rv = 0; rv < spec.runtimes(); rv++) {
          ms = line(spec, r, sink, app, seq, branch, "1." + rv + ".0", spec.publishesOf(line++), ms);
        }
      }
    }
  }

  /** One line's publishes (and rollouts); returns the next event time. */
  private static long line(Spec spec, SplittableRandom r, Consumer<EventEnvelope> sink, String app, long[] seq, String branch,
      String runtime, long publishes, long ms) {
    String previous = null;
    String rollout = null;
    for (long u = 0; u < publishes; u++) {
      if (rollout != null) {
        sink.accept(envelope(r, app, seq[0]++, Instant.ofEpochMilli(ms++), new EventPayload.RolloutFinished(previous, rollout)));
        rollout = null;
      }
      Instant at = Instant.ofEpochMilli(ms++);
      List<EventPayload.PlatformUpdate> platforms = new ArrayList<>();
      for (String p : spec.platforms()) {
        platforms.add(platformUpdate(r, spec, p, runtime, at));
      }
      EventPayload.Rollout ro = null;
      if (spec.rolloutEvery() > 0 && previous != null && u % spec.rolloutEvery() == spec.rolloutEvery() - 1) {
        rollout = uuid(r).toString();
        ro = new EventPayload.Rollout(rollout, 10, previous, null);
      }
      String id = uuid(r).toString();
      EventPayload.UpdateGroup g = new EventPayload.UpdateGroup(id, EventPayload.UpdateGroup.KIND_UPDATE,
          branch, runtime, "release " + u + " of " + app, HexFormat.of().formatHex(bytes(r, 20)), null, null, ro, platforms);
      sink.accept(envelope(r, app, seq[0]++, at, new EventPayload.UpdatePublished(g)));
      previous = id;
    }
    return ms;
  }

  private static EventEnvelope envelope(SplittableRandom r, String app, long seq, Instant at, EventPayload p) {
    return new EventEnvelope(uuid(r), p.type(), EventType.CURRENT_SCHEMA_VERSION, app, seq, at, "tok_generator", p);
  }

  private static EventPayload.PlatformUpdate platformUpdate(SplittableRandom r, Spec spec, String platform, String runtime, Instant at) {
    String id = uuid(r).toString();
    String createdAt = CREATED_AT.format(at);
    String launchKey = HexFormat.of().formatHex(bytes(r, 16));
    StringBuilder b = new StringBuilder(2048);
    b.append("{\"id\":\"").append(id).append("\",\"createdAt\":\"").append(createdAt).append("\",\"runtimeVersion\":\"").append(runtime)
        .append("\",\"launchAsset\":{\"hash\":\"").append(hash(r)).append("\",\"key\":\"").append(launchKey)
        .append("\",\"contentType\":\"application/javascript\",\"url\":\"").append(spec.publicUrl()).append("/assets/").append(launchKey)
        .append("\"},\"assets\":[");
    List<String> keys = new ArrayList<>();
    keys.add(launchKey);
    for (int i = 0; i < spec.assets(); i++) {
      String key = HexFormat.of().formatHex(bytes(r, 16));
      keys.add(key);
      if (i > 0) {
        b.append(',');
      }
      String ext = i % 3 == 0 ? ".ttf" : ".png";
      b.append("{\"hash\":\"").append(hash(r)).append("\",\"key\":\"").append(key).append("\",\"contentType\":\"")
          .append(ext.equals(".png") ? "image/png" : "font/ttf").append("\",\"fileExtension\":\"").append(ext).append("\",\"url\":\"")
          .append(spec.publicUrl()).append("/assets/").append(key).append("\"}");
    }
    b.append("],\"metadata\":{},\"extra\":{\"expoClient\":{\"name\":\"Demo\",\"slug\":\"demo\",\"version\":\"").append(runtime)
        .append("\",\"orientation\":\"portrait\",\"userInterfaceStyle\":\"light\",\"updates\":{\"url\":\"").append(spec.publicUrl())
        .append("/apps/demo/manifest\"},\"runtimeVersion\":\"").append(runtime).append("\",\"platforms\":[\"ios\",\"android\"]}")
        .append(",\"eas\":{\"projectId\":\"").append(uuid(r)).append("\"}}}");
    String signature = "sig=\"" + Base64.getEncoder().encodeToString(bytes(r, 256)) + "\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"";
    return new EventPayload.PlatformUpdate(platform, id, createdAt, b.toString(), signature, launchKey, keys);
  }

  private static String hash(SplittableRandom r) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes(r, 32));
  }

  private static byte[] bytes(SplittableRandom r, int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) r.nextInt(256);
    }
    return b;
  }

  private static Consumer<EventEnvelope> withProgress(Spec spec, Consumer<String> progress, Consumer<EventEnvelope> sink) {
    return new Progress(sink, progress, spec.totalPublishes(), System::nanoTime, 10_000_000_000L);
  }

  private static UUID uuid(SplittableRandom r) {
    return new UUID((r.nextLong() & ~0xF000L) | 0x4000L, (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L);
  }

  /**
   * Writes the log as JSON lines (one {@link EventCodec#encode} per line), saying how far it is every 10
   * seconds to {@code progress}.
   */
  public static Written toFile(Spec spec, Path file, Consumer<String> progress) throws IOException {
    long[] counts = new long[2];
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
      IOException[] failure = new IOException[1];
      generate(spec, withProgress(spec, progress, e -> {
        if (failure[0] != null) {
          return;
        }
        try {
          byte[] b = EventCodec.encode(e);
          out.write(b);
          out.write('\n');
          counts[0]++;
          counts[1] += b.length + 1;
        } catch (IOException ex) {
          failure[0] = ex;
        }
      }));
      if (failure[0] != null) {
        throw failure[0];
      }
    }
    return new Written(counts[0], counts[1], spec.apps());
  }

  /**
   * Creates the events topic as the control plane would (3 partitions, kept forever, never compacted)
   * when it does not exist: brokers here do not auto-create topics.
   */
  static void ensureTopic(String bootstrap, KafkaClientConfig kafka, String topic) throws ExecutionException {
    Properties p = new Properties();
    p.put(org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(org.apache.kafka.clients.admin.AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    p.put(org.apache.kafka.clients.admin.AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(kafka.apply(p))) {
      if (admin.listTopics().names().get(15, java.util.concurrent.TimeUnit.SECONDS).contains(topic)) {
        return;
      }
      org.apache.kafka.clients.admin.NewTopic t = new org.apache.kafka.clients.admin.NewTopic(topic, 3, (short) 1)
          .configs(java.util.Map.of("retention.ms", "-1", "cleanup.policy", "delete"));
      try {
        admin.createTopics(List.of(t)).all().get(15, java.util.concurrent.TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
          throw e;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ExecutionException("interrupted while checking topic=" + topic, e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new ExecutionException("Kafka not reachable at bootstrap=" + bootstrap + " (topic=" + topic + ")", e);
    }
  }

  /**
   * Appends the log to {@code <prefix>updraft.events} (key = app id), saying how far it is every 10 seconds
   * to {@code progress}; waits for every acknowledgement.
   */
  public static Written toKafka(Spec spec, String bootstrap, String topicPrefix, Consumer<String> progress)
      throws ExecutionException {
    return toKafka(spec, bootstrap, KafkaClientConfig.none(), topicPrefix, progress);
  }

  /** Like {@link #toKafka(Spec, String, String, Consumer)}, its clients with the {@code --kafka-config} settings. */
  public static Written toKafka(Spec spec, String bootstrap, KafkaClientConfig kafka, String topicPrefix, Consumer<String> progress)
      throws ExecutionException {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(4 * 1024 * 1024));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
    String topic = Topics.events(topicPrefix);
    ensureTopic(bootstrap, kafka, topic);
    long[] counts = new long[2];
    java.util.concurrent.atomic.AtomicLong failed = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicReference<Exception> firstFailure = new java.util.concurrent.atomic.AtomicReference<>();
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.apply(p), new StringSerializer(), new ByteArraySerializer())) {
      generate(spec, withProgress(spec, progress, e -> {
        byte[] b = EventCodec.encode(e);
        producer.send(new ProducerRecord<>(topic, e.appId(), b), (md, ex) -> {
          if (ex != null) {
            failed.incrementAndGet();
            firstFailure.compareAndSet(null, ex);
          }
        });
        counts[0]++;
        counts[1] += b.length;
      }));
      producer.flush();
    }
    if (failed.get() > 0) {
      throw new ExecutionException("events not acknowledged: failed=" + failed.get() + " of " + counts[0] + " topic=" + topic,
          firstFailure.get());
    }
    return new Written(counts[0], counts[1], spec.apps());
  }
}
