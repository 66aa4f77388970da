package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.core.CommandException;
import java.util.regex.Pattern;

/** Checks of names and values publishers send, each refusing with a 400 that names the field. */
public final class Validate {
  private static final Pattern APP_ID = Pattern.compile("[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?");
  private static final Pattern BRANCH = Pattern.compile("[A-Za-z0-9._-](?:[A-Za-z0-9._/-]{0,126}[A-Za-z0-9._-])?");
  private static final Pattern CHANNEL = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final Pattern IDEMPOTENCY = Pattern.compile("[\\x21-\\x7e]{1,128}");

  private Validate() {}

  public static String appId(String v) {
    if (v == null || !APP_ID.matcher(v).matches()) {
      throw CommandException.badRequest(
          "invalid-app-id",
          "app id must be a lower-case slug of 1-63 letters, digits and dashes (no leading or trailing dash): got '" + v + "'");
    }
    return v;
  }

  public static String branch(String field, String v) {
    if (v == null || v.isEmpty()) {
      throw CommandException.badRequest("invalid-branch", field + " is required");
    }
    if (!BRANCH.matcher(v).matches() || v.contains("//")) {
      throw CommandException.badRequest(
          "invalid-branch", field + " must be 1-128 letters, digits, '.', '_', '-' or '/' (not at the ends): got '" + v + "'");
    }
    return v;
  }

  public static String channel(String v) {
    if (v == null || !CHANNEL.matcher(v).matches()) {
      throw CommandException.badRequest(
          "invalid-channel", "channel must be 1-64 letters, digits, '.', '_' or '-': got '" + v + "'");
    }
    return v;
  }

  /**
   * A runtime version exactly as given: non-empty, printable ASCII without leading or trailing spaces,
   * because devices send it in the {@code expo-runtime-version} header and it is compared byte for byte.
   */
  public static String runtimeVersion(String field, String v) {
    if (v == null || v.isEmpty()) {
      throw CommandException.badRequest(
          "empty-runtime-version", field + " is empty; give the runtime version your build embeds (app.json runtimeVersion)");
    }
    if (v.length() > 255) {
      throw CommandException.badRequest("invalid-runtime-version", field + " is longer than 255 characters");
    }
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        throw CommandException.badRequest(
            "invalid-runtime-version", field + " must be printable ASCII (it travels in an HTTP header): bad character at index " + i);
      }
    }
    if (v.charAt(0) == ' ' || v.charAt(v.length() - 1) == ' ') {
      throw CommandException.badRequest(
          "invalid-runtime-version", field + " has leading or trailing spaces, which an HTTP header cannot carry: '" + v + "'");
    }
    return v;
  }

  public static String keyId(String v) {
    if (v == null) {
      return "main";
    }
    if (!KEY_ID.matcher(v).matches()) {
      throw CommandException.badRequest(
          "invalid-key-id", "keyId must be 1-64 letters, digits, '.', '_' or '-' (the keyid in app.json codeSigningMetadata): got '" + v + "'");
    }
    return v;
  }

  public static int percentage(String field, int v) {
    if (v < 0 || v > 100) {
      throw CommandException.badRequest("invalid-percentage", field + " must be between 0 and 100: got " + v);
    }
    return v;
  }

  public static String text(String field, String v, int max) {
    if (v != null && v.length() > max) {
      throw CommandException.badRequest("invalid-" + field, field + " is longer than " + max + " characters");
    }
    if (v != null && v.indexOf('\0') >= 0) {
      // PostgreSQL's text cannot hold it: the history projection could not store the event
      throw CommandException.badRequest("invalid-" + field, field + " contains a NUL character (U+0000) at index " + v.indexOf('\0'));
    }
    return v == null || v.isEmpty() ? null : v;
  }

  public static String idempotencyKey(String v) {
    if (v == null || v.isEmpty()) {
      return null;
    }
    if (!IDEMPOTENCY.matcher(v).matches()) {
      throw CommandException.badRequest(
          "invalid-idempotency-key", "idempotency key must be 1-128 printable ASCII characters without spaces");
    }
    return v;
  }
}
