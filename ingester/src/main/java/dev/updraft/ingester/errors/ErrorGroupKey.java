package dev.updraft.ingester.errors;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An error's group: its type and the top frame of its stack trace without line and column, so that the same error
 * thrown from the next update's bundle (where every position moved) falls in the same group. Frames are read in the
 * forms JavaScript engines print: V8 and Hermes ({@code at fn (file:1:2)}, {@code at file:1:2}, Hermes's
 * {@code at fn (address at file:1:2)}) and JavaScriptCore ({@code fn@file:1:2}). The file is reduced to its name
 * (no directory, scheme or query): {@code http://10.0.2.2:8081/index.bundle?platform=android} is {@code index.bundle}.
 * Pure; thread-safe.
 */
final class ErrorGroupKey {
  private static final Pattern V8 = Pattern.compile("^\\s*at\\s+(?:(.+?)\\s+\\()?(?:address at\\s+)?(.+?)(?::\\d+)?(?::\\d+)?\\)?\\s*$");
  private static final Pattern JSC = Pattern.compile("^\\s*([^@\\s]*)@(.+?)(?::\\d+)?(?::\\d+)?\\s*$");
  static final int MAX_FRAME = 300;

  private ErrorGroupKey() {}

  /** The top frame of {@code stack} as {@code function (file)}, {@code ""} when none is found. */
  static String topFrame(String stack) {
    if (stack == null) {
      return "";
    }
    for (String line : stack.split("\n", 64)) {
      Matcher m = V8.matcher(line);
      if (!m.matches()) {
        m = JSC.matcher(line);
        if (!m.matches()) {
          continue;
        }
      }
      String fn = m.group(1) == null || m.group(1).isBlank() ? "<anonymous>" : m.group(1).trim();
      String frame = fn + " (" + file(m.group(2)) + ")";
      return frame.length() > MAX_FRAME ? frame.substring(0, MAX_FRAME) : frame;
    }
    return "";
  }

  private static String file(String location) {
    String f = location.trim();
    int q = f.indexOf('?');
    if (q >= 0) {
      f = f.substring(0, q);
    }
    f = f.replaceAll("(:\\d+)+$", "");
    int slash = f.lastIndexOf('/');
    return slash >= 0 ? f.substring(slash + 1) : f;
  }

  /** The group's key: 32 hex digits of SHA-256 over type and top frame. */
  static String key(String type, String topFrame) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest((type + "\n" + topFrame).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
    }
  }
}
