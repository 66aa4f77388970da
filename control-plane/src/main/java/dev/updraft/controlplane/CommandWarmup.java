package dev.updraft.controlplane;

import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.render.AssetRef;
import dev.updraft.controlplane.render.ExpoTime;
import dev.updraft.controlplane.render.ManifestRenderer;
import dev.updraft.controlplane.render.UrlSource;
import dev.updraft.controlplane.signing.KeyStore;
import dev.updraft.controlplane.signing.Signer;
import dev.updraft.events.Decoded;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.GeneralSecurityException;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command path's warm-up, run before the control plane listens: what a publish and a republish compute, done to a
 * made-up update with a throwaway key, so that the first publish after a start is not the one that pays for loading
 * the key code and for the JIT. Measured before it existed (one app, then 10,000): the first republish after a start
 * spent 140 ms deciding, 116 of them loading the app's key and 20 signing, against 3-10 ms once a dozen had run.
 *
 * <p>A round renders a manifest for both platforms, renders each again as a republish does, signs each body, and
 * encodes and decodes the {@code update.published} event; a round in {@value #KEY_EVERY} also runs the key store's
 * load path ({@link KeyStore#exercise}). Rounds run until they stop getting faster (two windows of {@value #WINDOW}
 * rounds in a row without a 10 % gain), the budget is spent, or {@value #MAX_ROUNDS} ran. It writes nothing: no
 * event, no key file, no asset; the key exists only in memory.
 */
final class CommandWarmup {
  private static final Logger LOG = LoggerFactory.getLogger(CommandWarmup.class);
  static final int MAX_ROUNDS = 2_000;
  static final int WINDOW = 25;
  static final int KEY_EVERY = 10;
  private static final String APP = "warm-up";
  private static final UrlSource URLS = (sha256, ext, type) -> "https://warm-up.invalid/assets/" + sha256 + (ext == null ? "" : ext);
  private static final AssetRef LAUNCH = new AssetRef("a".repeat(64), "b".repeat(32), "application/javascript", null);
  private static final List<AssetRef> ASSETS = List.of(
      new AssetRef("c".repeat(64), "d".repeat(32), "image/png", ".png"),
      new AssetRef("e".repeat(64), "f".repeat(32), "font/ttf", ".ttf"));

  /**
   * What a warm-up did.
   *
   * @param rounds rounds run
   * @param millis its whole time, the throwaway key's generation included
   * @param firstRoundMicros the first round's time
   * @param lastWindowMicros the mean round time of the last window (the first round's when fewer ran)
   * @param stoppedBy {@code flat}, {@code budget} or {@code rounds}
   */
  record Result(int rounds, long millis, long firstRoundMicros, long lastWindowMicros, String stoppedBy) {
    /** Its figures on {@code /metrics}: {@code updraft_control_command_warmup_rounds} and {@code _seconds}. */
    void register(MeterRegistry metrics) {
      Gauge.builder("updraft_control_command_warmup_rounds", this, r -> r.rounds)
          .description("Rounds the command warm-up ran before the control plane listened (0: --command-warmup 0)").register(metrics);
      Gauge.builder("updraft_control_command_warmup_seconds", this, r -> r.millis / 1000.0)
          .description("How long the command warm-up took, its throwaway key's generation included").register(metrics);
    }
  }

  private CommandWarmup() {}

  /** Warms the command path for at most {@code budget}; {@code budget} zero does nothing. Blocking. */
  static Result run(KeyStore keys, Duration budget) {
    if (budget.isZero()) {
      return new Result(0, 0, 0, 0, "off");
    }
    long t0 = System.nanoTime();
    long deadline = t0 + budget.toNanos();
    PrivateKey key = throwawayKey();
    ObjectNode config = JsonMapper.builder().build().createObjectNode().put("name", "warm-up").put("slug", "warm-up");
    long first = 0;
    long window = 0;
    long previousWindow = Long.MAX_VALUE;
    long lastWindow = 0;
    int flatWindows = 0;
    int rounds = 0;
    String stoppedBy = "rounds";
    while (rounds < MAX_ROUNDS) {
      if (System.nanoTime() - deadline >= 0) {
        stoppedBy = "budget";
        break;
      }
      long r0 = System.nanoTime();
      round(keys, key, config, rounds);
      long took = System.nanoTime() - r0;
      first = rounds == 0 ? took : first;
      window += took;
      rounds++;
      if (rounds % WINDOW == 0) {
        flatWindows = window * 10 > previousWindow * 9 ? flatWindows + 1 : 0;
        previousWindow = window;
        lastWindow = window / WINDOW;
        window = 0;
        if (flatWindows >= 2) {
          stoppedBy = "flat";
          break;
        }
      }
    }
    Result r = new Result(rounds, (System.nanoTime() - t0) / 1_000_000, first / 1000, (lastWindow == 0 ? first : lastWindow) / 1000,
        stoppedBy);
    LOG.info("command warm-up: {} rounds (render, sign and encode a publish of two platforms) in {} ms, stopped by {}: "
        + "first round {} us, last rounds {} us each (--command-warmup {} ms; 0s skips it)", r.rounds(), r.millis(), r.stoppedBy(),
        r.firstRoundMicros(), r.lastWindowMicros(), budget.toMillis());
    return r;
  }

  private static void round(KeyStore keys, PrivateKey key, ObjectNode config, int i) {
    PrivateKey signing = i % KEY_EVERY == 0 ? keys.exercise(key) : key;
    String created = ExpoTime.format(Instant.ofEpochMilli(1_700_000_000_000L + i));
    List<PlatformUpdate> entries = new ArrayList<>();
    for (String platform : List.of("ios", "android")) {
      String body = ManifestRenderer.manifest(UUID.randomUUID(), created, "1.0.0", "production", LAUNCH, ASSETS, config, URLS);
      UUID again = UUID.randomUUID();
      String republished = ManifestRenderer.rerender(body, again, created, "staging", URLS);
      String signature = Signer.signatureHeader(signing, "main", republished);
      entries.add(new PlatformUpdate(platform, again.toString(), created, republished, signature, LAUNCH.md5Hex(),
          List.of(LAUNCH.md5Hex()), Map.of("main", signature)));
    }
    UpdateGroup group = new UpdateGroup(UUID.randomUUID().toString(), UpdateGroup.KIND_UPDATE, "staging", "1.0.0", "warm-up",
        null, null, null, null, entries);
    byte[] encoded = EventCodec.encode(EventEnvelope.of(APP, i + 1L, Instant.now(), "system", new UpdatePublished(group)));
    if (!(EventCodec.decode(encoded) instanceof Decoded.Known)) {
      throw new IllegalStateException("the warm-up's own update.published event (" + encoded.length + " bytes) did not decode");
    }
  }

  private static PrivateKey throwawayKey() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      return g.generateKeyPair().getPrivate();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot generate the warm-up's RSA key", e);
    }
  }
}
