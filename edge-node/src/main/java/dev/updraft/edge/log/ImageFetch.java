package dev.updraft.edge.log;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Reads one object beside the edge images in the asset storage ({@code --image-source}): from a directory
 * ({@code file:} or a path), over plain HTTP(S) (a URL prefix, whose query, such as an Azure SAS token, is kept),
 * or from an S3 API (SigV4-signed {@code GET}, path-style, the AWS credentials from the environment). Blocking;
 * every call bounded by {@link #TIMEOUT}.
 */
interface ImageFetch {
  Duration TIMEOUT = Duration.ofSeconds(10);

  /** The object's bytes, or null when there is none. */
  byte[] get(String name) throws IOException;

  /** For logs: where, never credentials. */
  String describe();

  /**
   * The reader of {@code location}.
   *
   * @param s3Endpoint nullable: AWS's endpoint of the region
   * @param s3Region nullable: {@code AWS_REGION}, else {@code us-east-1}
   */
  static ImageFetch of(String location, String s3Endpoint, String s3Region) {
    if (location.startsWith("s3://")) {
      String rest = location.substring(5);
      int slash = rest.indexOf('/');
      String bucket = slash < 0 ? rest : rest.substring(0, slash);
      String prefix = slash < 0 ? "" : rest.substring(slash + 1);
      String region = s3Region != null ? s3Region : System.getenv().getOrDefault("AWS_REGION", "us-east-1");
      String endpoint = s3Endpoint != null ? s3Endpoint : "https://s3." + region + ".amazonaws.com";
      return new S3(endpoint.replaceAll("/+$", ""), region, bucket, prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/");
    }
    if (location.startsWith("http://") || location.startsWith("https://")) {
      return new Http(location);
    }
    return new Dir(location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location));
  }

  /** A directory. */
  record Dir(Path dir) implements ImageFetch {
    @Override
    public byte[] get(String name) throws IOException {
      try {
        return Files.readAllBytes(dir.resolve(name));
      } catch (NoSuchFileException e) {
        return null;
      }
    }

    @Override
    public String describe() {
      return dir.toAbsolutePath().toString();
    }
  }

  /** Plain GETs under a URL prefix. */
  record Http(String location) implements ImageFetch {
    @Override
    public byte[] get(String name) throws IOException {
      int q = location.indexOf('?');
      String base = q < 0 ? location : location.substring(0, q);
      String url = (base.endsWith("/") ? base : base + "/") + name + (q < 0 ? "" : location.substring(q));
      return send(HttpRequest.newBuilder(URI.create(url)), name, describe());
    }

    @Override
    public String describe() {
      int q = location.indexOf('?');
      return q < 0 ? location : location.substring(0, q) + "?(query hidden)";
    }
  }

  /** An S3 API bucket, path-style, SigV4 with the environment's AWS credentials. */
  record S3(String endpoint, String region, String bucket, String prefix) implements ImageFetch {
    private static final String EMPTY_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    @Override
    public byte[] get(String name) throws IOException {
      String access = credential("AWS_ACCESS_KEY_ID", "aws.accessKeyId");
      String secret = credential("AWS_SECRET_ACCESS_KEY", "aws.secretAccessKey");
      if (access == null || secret == null) {
        throw new IOException("no AWS credentials for " + describe() + ": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
      }
      String token = credential("AWS_SESSION_TOKEN", "aws.sessionToken");
      URI uri = URI.create(endpoint + "/" + encode(bucket) + "/" + encodePath(prefix + name));
      String host = uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
      String stamp = ZonedDateTime.now(ZoneOffset.UTC).format(STAMP);
      String day = stamp.substring(0, 8);
      String signed = "host;x-amz-content-sha256;x-amz-date" + (token == null ? "" : ";x-amz-security-token");
      String canonical = "GET\n" + uri.getRawPath() + "\n\nhost:" + host + "\nx-amz-content-sha256:" + EMPTY_SHA + "\nx-amz-date:" + stamp
          + "\n" + (token == null ? "" : "x-amz-security-token:" + token + "\n") + "\n" + signed + "\n" + EMPTY_SHA;
      String scope = day + "/" + region + "/s3/aws4_request";
      String toSign = "AWS4-HMAC-SHA256\n" + stamp + "\n" + scope + "\n" + HexFormat.of().formatHex(sha256(canonical));
      byte[] k = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), day);
      k = hmac(hmac(hmac(k, region), "s3"), "aws4_request");
      String signature = HexFormat.of().formatHex(hmac(k, toSign));
      HttpRequest.Builder b = HttpRequest.newBuilder(uri).header("x-amz-date", stamp).header("x-amz-content-sha256", EMPTY_SHA)
          .header("authorization", "AWS4-HMAC-SHA256 Credential=" + access + "/" + scope + ", SignedHeaders=" + signed + ", Signature=" + signature);
      if (token != null) {
        b.header("x-amz-security-token", token);
      }
      return send(b, name, describe());
    }

    @Override
    public String describe() {
      return "s3://" + bucket + "/" + prefix + " at " + endpoint + " (" + region + ")";
    }

    private static String credential(String env, String property) {
      String v = System.getProperty(property);
      return v != null && !v.isBlank() ? v : System.getenv(env);
    }

    private static String encode(String s) {
      return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20").replace("*", "%2A").replace("%7E", "~");
    }

    private static String encodePath(String key) {
      StringBuilder out = new StringBuilder();
      for (String part : key.split("/", -1)) {
        out.append(out.isEmpty() ? "" : "/").append(encode(part));
      }
      return out.toString();
    }

    private static byte[] sha256(String s) {
      try {
        return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }

    private static byte[] hmac(byte[] key, String data) {
      try {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static byte[] send(HttpRequest.Builder request, String name, String where) throws IOException {
    HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).followRedirects(HttpClient.Redirect.NORMAL).build();
    HttpResponse<byte[]> res;
    try {
      res = client.send(request.timeout(TIMEOUT).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted reading " + name + " from " + where, e);
    }
    if (res.statusCode() == 404) {
      return null;
    }
    if (res.statusCode() != 200) {
      throw new IOException("reading " + name + " from " + where + " answered HTTP " + res.statusCode());
    }
    return res.body();
  }
}
