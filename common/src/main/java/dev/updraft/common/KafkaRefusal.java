package dev.updraft.common;

import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;

/**
 * What a Kafka client's failure says about the service's Kafka security settings, in one line naming the
 * cause and the setting to fix: refused credentials, a failed TLS handshake, a missing ACL. Other failures
 * (a broker down, a timeout) are not refusals. Stateless.
 */
public final class KafkaRefusal {
  private KafkaRefusal() {}

  /** The reason, or null when {@code t} (or a cause of it) is no authentication or authorization failure. */
  public static String of(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      String why = one(c);
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  private static String one(Throwable c) {
    String msg = c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
    String file = "--kafka-config (" + Settings.envName(KafkaClientConfig.FLAG) + ")";
    if (c instanceof SslAuthenticationException) {
      return "the TLS handshake with Kafka failed (" + msg + "): check ssl.truststore.* (the cluster's CA) and, for mTLS,"
          + " ssl.keystore.* in " + file;
    }
    if (c instanceof SaslAuthenticationException || c instanceof AuthenticationException) {
      return "Kafka refused the credentials (" + msg + "): check sasl.mechanism and sasl.jaas.config (user, password) in " + file;
    }
    if (c instanceof TopicAuthorizationException e) {
      return "Kafka denied this principal topics " + e.unauthorizedTopics() + " (" + msg + "): an ACL is missing (docs/operations.md,"
          + " Secured Kafka)";
    }
    if (c instanceof GroupAuthorizationException e) {
      return "Kafka denied this principal the consumer group " + e.groupId() + " (" + msg + "): an ACL (READ on the group) is missing"
          + " (docs/operations.md, Secured Kafka)";
    }
    if (c instanceof TransactionalIdAuthorizationException) {
      return "Kafka denied this principal its transactional id (" + msg + "): an ACL (WRITE and DESCRIBE on the transactional id)"
          + " is missing (docs/operations.md, Secured Kafka)";
    }
    if (c instanceof ClusterAuthorizationException) {
      return "Kafka denied a cluster operation (" + msg + "): an idempotent producer needs WRITE on its topic or IDEMPOTENT_WRITE"
          + " on the cluster (docs/operations.md, Secured Kafka)";
    }
    return null;
  }
}
