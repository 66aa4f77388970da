package dev.updraft.controlplane;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay on 127.0.0.1 in front of a real server that can cut a connection half-way through what the
 * client sends: with {@link #cutUploadsAfter(long)} set, a connection whose client has sent more than that
 * many bytes is closed on both sides, as a network failure or a crash in the middle of an upload would.
 * Daemon threads; {@link #close()} ends every connection.
 */
final class CuttingRelay implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final AtomicLong cutAfter = new AtomicLong();
  private final AtomicInteger cuts = new AtomicInteger();
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  CuttingRelay(String targetUrl) {
    URI u = URI.create(targetUrl);
    target = new InetSocketAddress(u.getHost(), u.getPort());
    try {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread accept = new Thread(this::acceptLoop, "relay-accept");
    accept.setDaemon(true);
    accept.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  /** Cut every connection once its client has sent more than {@code bytes} (0: never). */
  void cutUploadsAfter(long bytes) {
    cutAfter.set(bytes);
  }

  /** How many connections were cut. */
  int cuts() {
    return cuts.get();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket();
        upstream.connect(target, 5_000);
        open.add(client);
        open.add(upstream);
        pump(client, upstream, true);
        pump(upstream, client, false);
      } catch (IOException e) {
        // closed, or the target refused: the client sees its connection end
      }
    }
  }

  private void pump(Socket from, Socket to, boolean fromClient) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[8192];
              long sent = 0;
              try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  long limit = cutAfter.get();
                  if (fromClient && limit > 0 && sent + n > limit) {
                    int part = (int) Math.max(0, limit - sent);
                    out.write(buf, 0, part);
                    out.flush();
                    cuts.incrementAndGet();
                    break;
                  }
                  out.write(buf, 0, n);
                  out.flush();
                  sent += n;
                }
              } catch (IOException e) {
                // the other side closed
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "relay-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // already closed
    }
    for (Socket s : open) {
      closeQuietly(s);
    }
  }
}
