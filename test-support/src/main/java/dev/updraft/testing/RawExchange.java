package dev.updraft.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One HTTP exchange on a raw socket, for requests no HTTP client would send (oversized heads, lying
 * {@code content-length}, bytes that are not HTTP): what comes back, as ISO-8859-1 text.
 */
public final class RawExchange {
  private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)\r\ncontent-length: *(\\d+)");

  private RawExchange() {}

  /**
   * Sends {@code request} to 127.0.0.1:{@code port} and reads the first answer: its head and, by
   * {@code content-length}, its body; or whatever arrived before the server closed or 15 s passed.
   */
  public static String answer(int port, byte[] request) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(15_000);
      OutputStream out = s.getOutputStream();
      try {
        out.write(request);
        out.flush();
      } catch (IOException e) {
        // the server may refuse and close before reading everything; its answer is still readable
      }
      InputStream in = s.getInputStream();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      try {
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
          got.write(buf, 0, n);
          if (complete(got.toString(StandardCharsets.ISO_8859_1))) {
            break;
          }
        }
      } catch (SocketTimeoutException | SocketException e) {
        // whatever arrived is the answer
      }
      return got.toString(StandardCharsets.ISO_8859_1);
    }
  }

  /** Whether {@code s} holds a whole answer: a head, and as many body bytes as its content-length says. */
  static boolean complete(String s) {
    int end = s.indexOf("\r\n\r\n");
    if (end < 0) {
      return false;
    }
    Matcher m = CONTENT_LENGTH.matcher(s.substring(0, end));
    return m.find() && s.length() - end - 4 >= Integer.parseInt(m.group(1));
  }

  /** The status code of an answer, or -1 when it is not an HTTP/1.x status line. */
  public static int status(String answer) {
    return answer.startsWith("HTTP/1.") && answer.length() >= 12 ? Integer.parseInt(answer.substring(9, 12)) : -1;
  }

  /** The body of an answer (everything after its head). */
  public static String body(String answer) {
    int end = answer.indexOf("\r\n\r\n");
    return end < 0 ? "" : answer.substring(end + 4);
  }
}
