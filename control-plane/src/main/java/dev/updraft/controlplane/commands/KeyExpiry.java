package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.SigningState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code updraft_control_signing_certificate_expiry_seconds{app, keyid}}: seconds until each active key's
 * certificate (for a chain, its first certificate to lapse) expires, negative once it has. Devices check
 * expiry against their own clock with no grace and reject every answer signed under a lapsed certificate,
 * so {@code infra/prometheus/alerts.yml} alerts well before. The value is computed at each scrape; the set
 * of keys is refreshed after every key command and at start. Thread-safe.
 */
public final class KeyExpiry {
  private final MultiGauge gauge;
  private final Supplier<Iterable<AppState>> apps;
  private final Clock clock;

  KeyExpiry(MeterRegistry registry, Supplier<Iterable<AppState>> apps, Clock clock) {
    this.gauge =
        MultiGauge.builder("updraft_control_signing_certificate_expiry_seconds")
            .description("seconds until an app's code-signing certificate expires (negative: expired); devices reject "
                + "everything signed under an expired one")
            .baseUnit("seconds")
            .register(registry);
    this.apps = apps;
    this.clock = clock;
  }

  /** Re-reads the keys of every app (one gauge row per app and keyid with a readable expiry). */
  public void refresh() {
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    for (AppState app : apps.get()) {
      for (SigningState k : app.keys()) {
        Instant notAfter = k.notAfter();
        if (notAfter != null) {
          // a supplier row: held strongly by the gauge (an object row would be a weak reference)
          rows.add(MultiGauge.Row.of(Tags.of("app", app.appId(), "keyid", k.keyId()),
              () -> (notAfter.toEpochMilli() - clock.millis()) / 1000.0));
        }
      }
    }
    gauge.register(rows, true);
  }
}
