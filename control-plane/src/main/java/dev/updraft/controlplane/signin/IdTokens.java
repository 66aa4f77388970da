package dev.updraft.controlplane.signin;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.updraft.controlplane.core.CommandException;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;

/**
 * Checks an ID token (OpenID Connect Core 3.1.3.7): signed (RSA or EC; never {@code none} or a shared-secret MAC) by
 * a key of the provider's JWKS, {@code iss} the provider, {@code aud} holding the client id ({@code azp} the client
 * when there are several audiences), {@code exp} not past and {@code nonce} the one this sign-in sent. Clocks may
 * differ by {@link #SKEW}. Refusals are 401 {@code id-token-invalid} naming the failed check. Stateless.
 */
final class IdTokens {
  static final Duration SKEW = Duration.ofSeconds(60);
  private static final Set<JWSAlgorithm> ALLOWED = Set.of(
      JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512, JWSAlgorithm.PS256, JWSAlgorithm.PS384, JWSAlgorithm.PS512,
      JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.ES512);

  private IdTokens() {}

  /** The token's claims once every check passed; null when no key of {@code keys} has its key id (fetch them again). */
  static JWTClaimsSet check(String idToken, JWKSet keys, String issuer, String clientId, String nonce, Instant now) {
    SignedJWT jwt;
    try {
      jwt = SignedJWT.parse(idToken);
    } catch (ParseException e) {
      throw refused("it is not a signed JWT (" + e.getMessage() + ")");
    }
    JWSAlgorithm alg = jwt.getHeader().getAlgorithm();
    if (!ALLOWED.contains(alg)) {
      throw refused("its algorithm " + alg + " is not accepted (RS*, PS* or ES*)");
    }
    String kid = jwt.getHeader().getKeyID();
    boolean found = false;
    boolean verified = false;
    for (JWK k : keys.getKeys()) {
      if (kid != null && !kid.equals(k.getKeyID())) {
        continue;
      }
      JWSVerifier v = verifier(k, alg);
      if (v == null) {
        continue;
      }
      found = true;
      try {
        if (jwt.verify(v)) {
          verified = true;
          break;
        }
      } catch (JOSEException e) {
        // a key of the wrong size or curve for this algorithm: try the next one
      }
    }
    if (!found) {
      return null;
    }
    if (!verified) {
      throw refused("its signature does not verify with the provider's keys");
    }
    JWTClaimsSet c;
    try {
      c = jwt.getJWTClaimsSet();
    } catch (ParseException e) {
      throw refused("its claims do not parse");
    }
    if (!strip(issuer).equals(strip(String.valueOf(c.getIssuer())))) {
      throw refused("its issuer is '" + Provider.clip(String.valueOf(c.getIssuer())) + "', not " + issuer);
    }
    List<String> aud = c.getAudience();
    if (aud == null || !aud.contains(clientId)) {
      throw refused("its audience " + (aud == null ? "(none)" : Provider.clip(aud.toString())) + " does not hold this client ("
          + clientId + ")");
    }
    Object azp = c.getClaim("azp");
    if ((aud.size() > 1 || azp != null) && !clientId.equals(azp)) {
      throw refused("its authorized party (azp) is '" + azp + "', not this client");
    }
    Date exp = c.getExpirationTime();
    if (exp == null || exp.toInstant().plus(SKEW).isBefore(now)) {
      throw refused("it expired" + (exp == null ? " (no exp)" : " at " + exp.toInstant()));
    }
    if (!nonce.equals(c.getClaim("nonce"))) {
      throw refused("its nonce is not the one this sign-in sent");
    }
    if (c.getSubject() == null || c.getSubject().isEmpty()) {
      throw refused("it has no subject");
    }
    return c;
  }

  private static JWSVerifier verifier(JWK k, JWSAlgorithm alg) {
    try {
      if (k instanceof RSAKey && JWSAlgorithm.Family.RSA.contains(alg)) {
        return new RSASSAVerifier(((RSAKey) k).toRSAPublicKey());
      }
      if (k instanceof ECKey && JWSAlgorithm.Family.EC.contains(alg)) {
        return new ECDSAVerifier(((ECKey) k).toECPublicKey());
      }
    } catch (JOSEException e) {
      return null;
    }
    return null;
  }

  private static String strip(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  private static CommandException refused(String why) {
    return new CommandException(401, "id-token-invalid", "the provider's ID token is refused: " + why + "; sign in again");
  }
}
