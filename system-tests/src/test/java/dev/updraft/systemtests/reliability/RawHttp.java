package dev.updraft.systemtests.reliability;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, byte for byte what the caller writes: for requests no ordinary client
 * would send (bad bytes, repeated or huge headers) and for pipelining many requests on one connection.
 * Reads responses framed by {@code content-length}, chunked encoding, or the end of the connection.
 * Not thread-safe.
 */
public final class RawHttp implements Closeable {
  /** At most this many bytes of one response body are kept (the edge's are a few KB). */
  private static final int MAX_BODY = 4 << 20;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  /** A response; header names lower-cased. */
  public record Response(int status, Map<String, List<String>> headers, byte[] body) {
    public String header(String name) {
      List<String> v = headers.get(name);
      return v == null ? null : v.get(0);
    }

    /** Whether the server said it closes the connection after this response. */
    public boolean closes() {
      String c = header("connection");
      return c != null && c.toLowerCase(Locale.ROOT).contains("close");
    }

    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  public RawHttp(int port, int readTimeoutMillis) throws IOException {
    socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    socket.setSoTimeout(readTimeoutMillis);
    in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
    out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
  }

  public Socket socket() {
    return socket;
  }

  public void write(byte[] bytes) throws IOException {
    out.write(bytes);
  }

  public void flush() throws IOException {
    out.flush();
  }

  /** One request, then its response (null when the server closed without answering). */
  public Response exchange(byte[] request) throws IOException {
    write(request);
    flush();
    return read(false);
  }

  /**
   * The next response, or null when the connection ended before a status line.
   *
   * @param noBody the response is to a HEAD request (a content-length but no body)
   */
  public Response read(boolean noBody) throws IOException {
    String status = line(true);
    if (status == null) {
      return null;
    }
    if (!status.startsWith("HTTP/") || status.length() < 12 || status.charAt(8) != ' ') {
      throw new IOException("not an HTTP status line: '" + status + "'");
    }
    int code = Integer.parseInt(status.substring(9, 12));
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (String h = line(false); !h.isEmpty(); h = line(false)) {
      int colon = h.indexOf(':');
      if (colon <= 0) {
        throw new IOException("bad response header line '" + h + "'");
      }
      headers.computeIfAbsent(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>(1)).add(h.substring(colon + 1).trim());
    }
    Response head = new Response(code, headers, new byte[0]);
    if (noBody || code == 204 || code == 304 || code / 100 == 1) {
      return head;
    }
    String te = head.header("transfer-encoding");
    String cl = head.header("content-length");
    byte[] body;
    if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
      body = chunked();
    } else if (cl != null) {
      long n = Long.parseLong(cl.trim());
      if (n > MAX_BODY) {
        throw new IOException("response body of " + n + " bytes is larger than expected");
      }
      body = in.readNBytes((int) n);
      if (body.length != n) {
        throw new IOException("connection ended inside a body: got " + body.length + " of " + n + " bytes");
      }
    } else {
      body = in.readNBytes(MAX_BODY); // until the server closes
    }
    return new Response(code, headers, body);
  }

  private byte[] chunked() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    while (true) {
      String size = line(false);
      int semi = size.indexOf(';');
      int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
      if (n == 0) {
        while (!line(false).isEmpty()) {
          // trailers
        }
        return b.toByteArray();
      }
      byte[] chunk = in.readNBytes(n);
      if (chunk.length != n || b.size() + n > MAX_BODY) {
        throw new IOException("bad chunk of " + n + " bytes");
      }
      b.write(chunk);
      line(false);
    }
  }

  /** A CRLF-terminated line as ISO-8859-1; null at the end of the stream only when {@code eofOk}. */
  private String line(boolean eofOk) throws IOException {
    StringBuilder sb = new StringBuilder(64);
    while (true) {
      int c = in.read();
      if (c < 0) {
        if (eofOk && sb.length() == 0) {
          return null;
        }
        throw new IOException("connection ended inside a response head after '" + sb + "'");
      }
      if (c == '\n') {
        int len = sb.length();
        if (len > 0 && sb.charAt(len - 1) == '\r') {
          sb.setLength(len - 1);
        }
        return sb.toString();
      }
      if (sb.length() > 64 * 1024) {
        throw new IOException("response head line longer than 64 KiB");
      }
      sb.append((char) c);
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing a socket that failed: nothing left to release
    }
  }
}
