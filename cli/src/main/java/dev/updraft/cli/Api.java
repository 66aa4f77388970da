package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Flow;
import java.util.function.LongConsumer;

/**
 * The control plane's {@code /v1} API over java.net.http. Non-2xx answers become a {@link CliException}
 * carrying the server's error message. Calls marked retryable are retried (same request, so the same
 * idempotency key) on connection failures and 429/502/503/504, a bounded number of times, each after the
 * longer of its own backoff and the server's {@code Retry-After} (up to {@link #MAX_RETRY_AFTER_MILLIS}).
 */
final class Api {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final int ATTEMPTS = 5;
  /** The longest {@code Retry-After} the CLI waits for; a longer one ends the command with the server's wait. */
  static final long MAX_RETRY_AFTER_MILLIS = 60_000;

  private final String server;
  private final String token;
  private final HttpClient http;
  /** " through the proxy …" when there is one, for messages; empty otherwise. */
  private final String via;
  private final Sleeper sleeper;

  /** Waits between retries (a test can make it instant). */
  interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  /**
   * @param cacert nullable: PEM certificates to trust for an {@code https://} server instead of the JVM's
   *     trust store (a private CA, or the server's self-signed certificate)
   */
  Api(String server, String token, Sleeper sleeper, Path cacert) throws CliException {
    this(server, token, sleeper, cacert, null);
  }

  /** @param proxy nullable: connect directly */
  Api(String server, String token, Sleeper sleeper, Path cacert, Proxies proxy) throws CliException {
    this.server = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
    this.token = token;
    this.sleeper = sleeper;
    this.via = proxy == null ? "" : " " + proxy.describe();
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER);
    if (cacert != null) {
      b.sslContext(trusting(cacert));
    }
    if (proxy != null) {
      b.proxy(proxy.selector());
      java.net.Authenticator credentials = proxy.authenticator();
      if (credentials != null) {
        b.authenticator(credentials);
      }
    }
    this.http = b.build();
  }

  /** An SSL context that trusts exactly the certificates in the PEM file {@code cacert}. */
  static javax.net.ssl.SSLContext trusting(Path cacert) throws CliException {
    java.util.Collection<? extends java.security.cert.Certificate> certs;
    try (java.io.InputStream in = java.nio.file.Files.newInputStream(cacert)) {
      certs = java.security.cert.CertificateFactory.getInstance("X.509").generateCertificates(in);
    } catch (IOException e) {
      throw CliException.usage("--cacert (UPDRAFT_CACERT) " + cacert + " cannot be read: " + e.getMessage());
    } catch (java.security.cert.CertificateException e) {
      throw CliException.usage("--cacert (UPDRAFT_CACERT) " + cacert + " is not a PEM certificate file: " + e.getMessage());
    }
    if (certs.isEmpty()) {
      throw CliException.usage("--cacert (UPDRAFT_CACERT) " + cacert + " holds no certificate");
    }
    try {
      java.security.KeyStore ks = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
      ks.load(null, null);
      int i = 0;
      for (java.security.cert.Certificate c : certs) {
        ks.setCertificateEntry("ca-" + i++, c);
      }
      javax.net.ssl.TrustManagerFactory tmf =
          javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (IOException | java.security.GeneralSecurityException e) {
      throw new IllegalStateException("cannot build a trust store from " + cacert, e);
    }
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  JsonNode get(String path) throws CliException {
    return get(path, Duration.ofSeconds(60));
  }

  /** A GET that gives up after {@code timeout} (a CliException then), for questions a command can do without. */
  JsonNode get(String path, Duration timeout) throws CliException {
    return json(send("GET", path, HttpRequest.BodyPublishers.noBody(), null, Map.of(), false, timeout));
  }

  String getText(String path) throws CliException {
    return new String(send("GET", path, HttpRequest.BodyPublishers.noBody(), null, Map.of(), false, Duration.ofSeconds(60)).body(), StandardCharsets.UTF_8);
  }

  JsonNode post(String path, Object body) throws CliException {
    return json(send("POST", path, jsonBody(body), "application/json", Map.of(), false, Duration.ofSeconds(60)));
  }

  /** A POST retried on transient failures with the same body and headers. */
  JsonNode postRetrying(String path, Object body, Map<String, String> headers) throws CliException {
    return json(send("POST", path, jsonBody(body), "application/json", headers, true, Duration.ofMinutes(2)));
  }

  JsonNode put(String path, Object body) throws CliException {
    return json(send("PUT", path, jsonBody(body), "application/json", Map.of(), false, Duration.ofSeconds(60)));
  }

  JsonNode patch(String path, Object body) throws CliException {
    return json(send("PATCH", path, jsonBody(body), "application/json", Map.of(), false, Duration.ofSeconds(60)));
  }

  JsonNode delete(String path) throws CliException {
    return json(send("DELETE", path, HttpRequest.BodyPublishers.noBody(), null, Map.of(), false, Duration.ofSeconds(60)));
  }

  /** Uploads a file's bytes (retried: a PUT of content-addressed bytes is idempotent). */
  JsonNode upload(String path, Path file, long size, String contentType, LongConsumer progress) throws CliException {
    return json(
        send(
            "PUT",
            path,
            new Counting(file, size, progress),
            contentType,
            Map.of(),
            true,
            Duration.ofMinutes(10)));
  }

  private HttpResponse<byte[]> send(
      String method, String path, HttpRequest.BodyPublisher body, String contentType, Map<String, String> headers, boolean retry, Duration timeout)
      throws CliException {
    URI uri;
    try {
      uri = URI.create(server + path);
    } catch (IllegalArgumentException e) {
      throw CliException.usage("bad server URL '" + server + "': " + e.getMessage());
    }
    int attempts = retry ? ATTEMPTS : 1;
    CliException last = null;
    long serverWait = -1;
    for (int attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) {
        try {
          sleeper.sleep(Math.max(serverWait, Math.min(8000, 500L << (attempt - 2))));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new CliException("interrupted");
        }
      }
      HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout).method(method, body);
      if (token != null) {
        b.header("Authorization", "Bearer " + token);
      }
      if (contentType != null) {
        b.header("Content-Type", contentType);
      }
      headers.forEach(b::header);
      HttpResponse<byte[]> r;
      try {
        r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      } catch (ConnectException e) {
        last = new CliException("cannot connect to " + server + via + " (" + e.getMessage() + "); is the control plane running? (--server / UPDRAFT_SERVER)");
        continue;
      } catch (javax.net.ssl.SSLHandshakeException e) {
        // not transient: retrying cannot make the certificate trusted
        throw new CliException(
            "TLS handshake with " + server + " failed (" + e.getMessage() + "); if the server's certificate is self-signed or from a private CA,"
                + " give that certificate's PEM file with --cacert or UPDRAFT_CACERT");
      } catch (IOException e) {
        last = new CliException(method + " " + uri + " failed: " + e.getMessage());
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliException("interrupted");
      }
      if (r.statusCode() / 100 == 2) {
        return r;
      }
      last = error(r);
      if (!(r.statusCode() == 429 || r.statusCode() == 502 || r.statusCode() == 503 || r.statusCode() == 504)) {
        throw last;
      }
      serverWait = retryAfterMillis(r.headers().firstValue("Retry-After").orElse(null), System.currentTimeMillis());
      if (serverWait > MAX_RETRY_AFTER_MILLIS && attempt < attempts) {
        throw new CliException(last.getMessage() + " (the server asks to retry in " + (serverWait + 999) / 1000
            + " s, longer than the " + MAX_RETRY_AFTER_MILLIS / 1000 + " s the CLI waits: run it again then)", false, last.status,
            last.code);
      }
    }
    throw last;
  }

  /**
   * The wait a {@code Retry-After} header asks for (RFC 9110: seconds, or an HTTP date), in milliseconds; -1
   * without one or when it cannot be read (the CLI's own backoff then applies).
   */
  static long retryAfterMillis(String header, long nowMillis) {
    if (header == null || header.isBlank()) {
      return -1;
    }
    String v = header.strip();
    if (v.chars().allMatch(Character::isDigit)) {
      return v.length() > 9 ? Long.MAX_VALUE / 2 : Long.parseLong(v) * 1000;
    }
    try {
      long at = java.time.ZonedDateTime.parse(v, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
      return Math.max(0, at - nowMillis);
    } catch (java.time.format.DateTimeParseException e) {
      return -1;
    }
  }

  private static CliException error(HttpResponse<byte[]> r) {
    String code = null;
    String message = null;
    try {
      JsonNode n = JSON.readTree(r.body());
      code = n.path("error").path("code").asText(null);
      message = n.path("error").path("message").asText(null);
    } catch (IOException e) {
      // not our JSON error: fall through
    }
    if (message == null) {
      String text = new String(r.body(), StandardCharsets.UTF_8).strip();
      message = "HTTP " + r.statusCode() + (text.isEmpty() ? "" : ": " + (text.length() > 200 ? text.substring(0, 200) + "…" : text));
    }
    return new CliException(message.replace('\n', ' '), false, r.statusCode(), code);
  }

  private static JsonNode json(HttpResponse<byte[]> r) throws CliException {
    if (r.body().length == 0) {
      return JSON.createObjectNode();
    }
    try {
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new CliException("the server answered HTTP " + r.statusCode() + " with something that is not JSON");
    }
  }

  private static HttpRequest.BodyPublisher jsonBody(Object body) throws CliException {
    try {
      return HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body));
    } catch (IOException e) {
      throw new CliException("cannot write request JSON: " + e.getMessage());
    }
  }

  /** A file body with a known length that reports how many bytes went out. */
  private static final class Counting implements HttpRequest.BodyPublisher {
    private final Path file;
    private final long size;
    private final LongConsumer progress;

    Counting(Path file, long size, LongConsumer progress) {
      this.file = file;
      this.size = size;
      this.progress = progress;
    }

    @Override
    public long contentLength() {
      return size;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> s) {
      HttpRequest.BodyPublisher inner;
      try {
        inner = HttpRequest.BodyPublishers.ofFile(file);
      } catch (java.io.FileNotFoundException e) {
        s.onSubscribe(new Flow.Subscription() {
          @Override
          public void request(long n) {}

          @Override
          public void cancel() {}
        });
        s.onError(e);
        return;
      }
      inner.subscribe(
          new Flow.Subscriber<ByteBuffer>() {
            long sent;

            @Override
            public void onSubscribe(Flow.Subscription subscription) {
              s.onSubscribe(subscription);
            }

            @Override
            public void onNext(ByteBuffer item) {
              sent += item.remaining();
              progress.accept(sent);
              s.onNext(item);
            }

            @Override
            public void onError(Throwable throwable) {
              s.onError(throwable);
            }

            @Override
            public void onComplete() {
              s.onComplete();
            }
          });
    }
  }
}
