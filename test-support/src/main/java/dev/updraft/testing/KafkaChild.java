package dev.updraft.testing;

/**
 * The main class of {@link SecuredKafka}'s broker process: runs Kafka's own {@code kafka.Kafka} and exits as soon
 * as its standard input ends, which happens when the test JVM that started it ends in any way (even SIGKILL), so
 * no broker outlives its tests (as {@link S3ProxyChild} does for S3Proxy).
 */
public final class KafkaChild {
  private KafkaChild() {}

  public static void main(String[] args) throws Exception {
    ParentWatch.start();
    Class.forName("kafka.Kafka").getMethod("main", String[].class).invoke(null, (Object) args);
  }
}
