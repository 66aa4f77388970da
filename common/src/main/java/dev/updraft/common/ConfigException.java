package dev.updraft.common;

/** A configuration value is missing, malformed or contradicts another. The message names the flag. */
public final class ConfigException extends IllegalArgumentException {
  public ConfigException(String message) {
    super(message);
  }
}
