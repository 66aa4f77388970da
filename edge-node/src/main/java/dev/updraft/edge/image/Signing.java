package dev.updraft.edge.image;

/**
 * An app's code-signing registration as the edge needs it: the key id devices expect and the signed
 * {@code noUpdateAvailable} directive. The edge never holds a private key.
 */
record Signing(String keyId, String certificateSha256, String noUpdateBody, String noUpdateSignature) {}
