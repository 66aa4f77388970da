/**
 * Code signing (protocol.md section 4): reading PEM keys and certificates, the checks expo-updates
 * applies to a certificate, RSASSA-PKCS1-v1_5/SHA-256 signatures in the {@code expo-signature} format,
 * and the key store. Private keys live only in the key store; they never reach an event or a log line.
 */
package dev.updraft.controlplane.signing;
