package dev.updraft.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * A TCP proxy on 127.0.0.1 that a test puts between a client and a server to break the network between
 * them: {@link #cut()} drops every connection and refuses new ones (closed as soon as accepted),
 * {@link #stall()} keeps connections open but moves no byte either way (a black hole: the client waits
 * for its own timeouts), {@link #restore()} forwards again. The target port is asked for at each new
 * connection, so a server restarted on another port is followed.
 *
 * <p>Blocking sockets, two daemon threads per connection; meant for a handful of connections. Thread-safe.
 */
public final class TcpProxy implements AutoCloseable {
  /** What the proxy does with the bytes. */
  public enum Mode {
    FORWARD,
    CUT,
    STALL
  }

  private final String name;
  private final ServerSocket server;
  private final IntSupplier target;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final AtomicLong accepted = new AtomicLong();
  private final Object gate = new Object();
  private volatile Mode mode = Mode.FORWARD;
  private volatile boolean closed;

  private TcpProxy(String name, ServerSocket server, IntSupplier target) {
    this.name = name;
    this.server = server;
    this.target = target;
  }

  /**
   * Listens on a free port of 127.0.0.1 and forwards each connection to 127.0.0.1:{@code target}.
   *
   * @param name names the proxy's threads
   */
  public static TcpProxy start(String name, IntSupplier target) {
    ServerSocket s;
    try {
      s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    } catch (IOException e) {
      throw new UncheckedIOException("proxy " + name + ": cannot listen on 127.0.0.1", e);
    }
    TcpProxy p = new TcpProxy(name, s, target);
    Thread t = new Thread(p::acceptLoop, "tcp-proxy-" + name);
    t.setDaemon(true);
    t.start();
    return p;
  }

  /** The port clients connect to. */
  public int port() {
    return server.getLocalPort();
  }

  public Mode mode() {
    return mode;
  }

  /** Connections accepted so far (refused ones included). */
  public long accepted() {
    return accepted.get();
  }

  /** Connections open now. */
  public int open() {
    return links.size();
  }

  /** Drops every connection and refuses new ones until {@link #restore()}. */
  public void cut() {
    mode = Mode.CUT;
    for (Link l : links) {
      l.close();
    }
  }

  /** Holds every byte (of open and of new connections) until {@link #restore()}; nothing is closed. */
  public void stall() {
    mode = Mode.STALL;
  }

  /** Forwards again; stalled bytes flow on. */
  public void restore() {
    synchronized (gate) {
      mode = Mode.FORWARD;
      gate.notifyAll();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        if (!closed) {
          System.err.println("proxy " + name + " stopped accepting: " + e);
        }
        return;
      }
      accepted.incrementAndGet();
      if (mode == Mode.CUT) {
        closeQuietly(client);
        continue;
      }
      Socket upstream = new Socket();
      try {
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target.getAsInt()), 2_000);
      } catch (IOException | RuntimeException e) {
        closeQuietly(client); // the server is down: the client sees a dropped connection, as it would without us
        closeQuietly(upstream);
        continue;
      }
      Link link = new Link(client, upstream);
      links.add(link);
      link.start();
    }
  }

  /** Waits while stalled; false when the proxy cut or closed the link meanwhile. */
  private boolean awaitForwarding(Link link) {
    synchronized (gate) {
      while (mode == Mode.STALL && !closed && !link.closed) {
        try {
          gate.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return mode == Mode.FORWARD && !closed && !link.closed;
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    for (Link l : links) {
      l.close();
    }
    synchronized (gate) {
      gate.notifyAll();
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // closing what is broken anyway
    }
  }

  /** One client connection and its upstream connection, with a pump thread per direction. */
  private final class Link {
    final Socket client;
    final Socket upstream;
    volatile boolean closed;

    Link(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
    }

    void start() {
      pump(client, upstream, "up");
      pump(upstream, client, "down");
    }

    private void pump(Socket from, Socket to, String direction) {
      Thread t = new Thread(() -> {
        byte[] buf = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
          int n;
          while ((n = in.read(buf)) >= 0) {
            if (!awaitForwarding(this)) {
              break;
            }
            out.write(buf, 0, n);
            out.flush();
          }
        } catch (IOException e) {
          // closed by the other direction, by cut() or by the peer
        } finally {
          close();
        }
      }, "tcp-proxy-" + name + "-" + direction);
      t.setDaemon(true);
      t.start();
    }

    void close() {
      closed = true;
      closeQuietly(client);
      closeQuietly(upstream);
      links.remove(this);
    }
  }
}
