/**
 * An independent toolkit for checking Expo Updates protocol answers, written without any server code
 * so that a server's own bugs cannot hide in its tests:
 *
 * <ul>
 *   <li>{@link dev.updraft.testing.protocol.StrictMultipartParser}: an iOS-style {@code multipart/mixed}
 *       reader (first delimiter required, CRLF rules, closing {@code --B--} followed by CRLF, part headers
 *       kept exactly as received, exact body bytes);
 *   <li>{@link dev.updraft.testing.protocol.OkHttpMultipart}: the same answer read by OkHttp 5's
 *       {@code MultipartReader}, which is what Android's expo-updates uses;
 *   <li>{@link dev.updraft.testing.protocol.ExpoSignature}: the {@code expo-signature} structured header,
 *       parsed with an RFC 8941 parser and held to the rules both clients enforce;
 *   <li>{@link dev.updraft.testing.protocol.SignatureVerifier}: SHA256withRSA against a PEM certificate.
 * </ul>
 *
 * <p>Everything here is stateless or immutable and thread-safe.
 */
package dev.updraft.testing.protocol;
