package dev.updraft.controlplane.state;

import java.time.Instant;

/**
 * An app's current code-signing certificate (the private key stays in the key store, found by
 * {@code certificateSha256}) and its pre-signed {@code noUpdateAvailable} directive.
 */
public record SigningState(
    String keyId,
    String certificatePem,
    String certificateSha256,
    String noUpdateDirectiveBody,
    String noUpdateDirectiveSignature,
    Instant registeredAt) {}
