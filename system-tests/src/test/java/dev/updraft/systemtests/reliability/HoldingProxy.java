package dev.updraft.systemtests.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy on loopback in front of a server, as a load balancer would be, that lets a test act at an
 * exact point of one HTTP/1.1 exchange: when the client's bytes contain a trigger (a request line), it
 * can keep that request from the server ({@link Mode#HOLD_REQUEST}), forward it and keep the server's
 * answer from the client ({@link Mode#HOLD_RESPONSE}), or forward it and run an action at once
 * ({@link Mode#ACT_AFTER_REQUEST}). The action (killing the server) runs on the proxy's thread; then every
 * connection is dropped. New connections wait (up to a minute) for the server to accept, and while the
 * gate is closed ({@link #closeGate()}), like a load balancer holding requests while no backend is up.
 * Like a proxy, it drops the hop-by-hop headers asking for an h2c upgrade, so exchanges stay HTTP/1.1.
 */
final class HoldingProxy implements AutoCloseable {
  enum Mode {
    PASS,
    HOLD_REQUEST,
    HOLD_RESPONSE,
    ACT_AFTER_REQUEST
  }

  private final int upstreamPort;
  private final ServerSocket server;
  private final Thread acceptor;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean running = true;
  private volatile Mode mode = Mode.PASS;
  private volatile byte[] trigger;
  private volatile Runnable action;
  private volatile CountDownLatch done = new CountDownLatch(1);
  private volatile CountDownLatch gate = new CountDownLatch(0);

  HoldingProxy(int upstreamPort) throws IOException {
    this.upstreamPort = upstreamPort;
    server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    acceptor = new Thread(this::accept, "holding-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /**
   * Arms the proxy: the next time the client sends {@code requestLine}, do {@code m}; then run
   * {@code onTrigger} and drop every connection. Returns a latch released when that has happened.
   */
  CountDownLatch arm(Mode m, String requestLine, Runnable onTrigger) {
    done = new CountDownLatch(1);
    trigger = requestLine.getBytes(StandardCharsets.US_ASCII);
    action = onTrigger;
    mode = m;
    return done;
  }

  /** New connections wait until {@link #openGate()}. */
  void closeGate() {
    gate = new CountDownLatch(1);
  }

  void openGate() {
    gate.countDown();
  }

  private void accept() {
    while (running) {
      try {
        Socket client = server.accept();
        sockets.add(client);
        Thread t = new Thread(() -> serve(client), "holding-proxy-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket client) {
    Socket upstream = null;
    try {
      if (!gate.await(60, TimeUnit.SECONDS)) {
        throw new IOException("gate closed for 60 s");
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (upstream == null) {
        Socket s = new Socket();
        try {
          s.connect(new InetSocketAddress("127.0.0.1", upstreamPort), 1000);
          upstream = s;
        } catch (IOException e) {
          s.close();
          if (System.nanoTime() > deadline || !running) {
            throw e;
          }
          Thread.sleep(50);
        }
      }
      sockets.add(upstream);
      Socket up = upstream;
      Exchange x = new Exchange();
      Thread back = new Thread(() -> pump(up, client, x, false), "holding-proxy-back");
      back.setDaemon(true);
      back.start();
      pump(client, up, x, true);
    } catch (IOException e) {
      close(client);
      close(upstream);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The state of one connection pair. */
  private static final class Exchange {
    volatile boolean holdingResponse;
    /** ACT_AFTER_REQUEST: the triggering request's bytes seen so far (from its request line on). */
    java.io.ByteArrayOutputStream pending;
  }

  /** Whether {@code request} (from its request line) holds its whole body, per its content-length. */
  private static boolean complete(byte[] request) {
    String text = new String(request, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      return false;
    }
    long length = 0;
    for (String line : text.substring(0, end).split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Long.parseLong(line.substring(15).trim());
      }
    }
    return request.length - (end + 4) >= length;
  }

  private void pump(Socket from, Socket to, Exchange x, boolean clientToServer) {
    byte[] buf = new byte[64 * 1024];
    byte[] recent = new byte[0];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
        if (clientToServer) {
          n = dropHopByHop(buf, n);
        }
        if (clientToServer && x.pending != null) {
          out.write(buf, 0, n);
          out.flush();
          x.pending.write(buf, 0, n);
          if (complete(x.pending.toByteArray())) {
            fire(); // the whole request reached the server, which is now working on it
            return;
          }
          continue;
        }
        if (clientToServer) {
          byte[] t = trigger;
          Mode m = mode;
          byte[] window = new byte[recent.length + n];
          System.arraycopy(recent, 0, window, 0, recent.length);
          System.arraycopy(buf, 0, window, recent.length, n);
          if (m != Mode.PASS && t != null && indexOf(window, t) >= 0) {
            mode = Mode.PASS;
            if (m == Mode.HOLD_REQUEST) {
              fire(); // the request never reaches the server
              return;
            }
            out.write(buf, 0, n);
            out.flush();
            if (m == Mode.ACT_AFTER_REQUEST) {
              int at = indexOf(window, t);
              x.pending = new java.io.ByteArrayOutputStream();
              x.pending.write(window, at, window.length - at);
              if (complete(x.pending.toByteArray())) {
                fire();
                return;
              }
              continue;
            }
            x.holdingResponse = true; // HOLD_RESPONSE: the other pump fires on the answer's first bytes
            continue;
          }
          recent = window.length > 256 ? java.util.Arrays.copyOfRange(window, window.length - 256, window.length) : window;
        } else if (x.holdingResponse) {
          fire(); // the answer never reaches the client
          return;
        }
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // a side closed: close the other
    } finally {
      close(from);
      close(to);
    }
  }

  /**
   * Removes the h2c upgrade request ({@code Connection: Upgrade, HTTP2-Settings}, {@code Upgrade: h2c},
   * {@code HTTP2-Settings}) from a request head in {@code buf}, as a proxy drops hop-by-hop headers
   * (RFC 9110 7.6.1): the exchange stays HTTP/1.1, whose request lines the proxy can see.
   */
  private static int dropHopByHop(byte[] buf, int n) {
    String text = new String(buf, 0, n, StandardCharsets.ISO_8859_1);
    int head = text.indexOf("\r\n\r\n");
    if (head < 0 || text.substring(0, head).toLowerCase(java.util.Locale.ROOT).indexOf("http2-settings") < 0) {
      return n;
    }
    StringBuilder out = new StringBuilder(n);
    for (String line : text.substring(0, head).split("\r\n", -1)) {
      String l = line.toLowerCase(java.util.Locale.ROOT);
      if (!(l.startsWith("connection:") || l.startsWith("upgrade:") || l.startsWith("http2-settings:"))) {
        out.append(line).append("\r\n");
      }
    }
    out.append("\r\n").append(text, head + 4, n);
    byte[] b = out.toString().getBytes(StandardCharsets.ISO_8859_1);
    System.arraycopy(b, 0, buf, 0, b.length);
    return b.length;
  }

  private synchronized void fire() {
    Runnable a = action;
    action = null;
    if (a != null) {
      a.run();
    }
    for (Socket s : sockets) {
      close(s);
    }
    sockets.clear();
    done.countDown();
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static void close(Socket s) {
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }

  @Override
  public void close() {
    running = false;
    gate.countDown();
    close(null);
    try {
      server.close();
    } catch (IOException e) {
      // closing
    }
    for (Socket s : sockets) {
      close(s);
    }
  }
}
