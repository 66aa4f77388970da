package dev.updraft.edge.image;

/**
 * One key of an app's key ring as the edge needs it: the {@code keyid} devices ask for, the signed
 * {@code noUpdateAvailable} directive and, in chain mode, the certificates served in the
 * {@code certificate_chain} part. The edge never holds a private key.
 *
 * @param chainPem nullable: not chain mode (the binary embeds this key's self-signed certificate)
 */
record SigningKey(String keyId, String certificateSha256, String noUpdateBody, String noUpdateSignature, String chainPem) {}
