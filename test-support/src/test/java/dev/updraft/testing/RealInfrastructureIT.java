package dev.updraft.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The test infrastructure is real: a broker that forms consumer groups, a PostgreSQL that runs SQL, an S3
 * server that checks signatures, keeps metadata and refuses expired presigned URLs.
 */
@ExtendWith(RealInfrastructure.class)
class RealInfrastructureIT {

  @Test
  void recordProducedThroughTheBrokerIsConsumedByAConsumerGroup(Infra infra) throws Exception {
    String topic = infra.topicPrefix() + "roundtrip";
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", infra.kafkaBootstrap()))) {
      admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
      for (int i = 0; i < 10; i++) {
        producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get();
      }
    }

    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
    cp.put(ConsumerConfig.GROUP_ID_CONFIG, infra.topicPrefix() + "group");
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
      consumer.subscribe(Set.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (values.size() < 10 && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          values.add(r.value());
        }
      }
      consumer.commitSync();
      assertThat(consumer.groupMetadata().generationId()).as("a real group generation").isPositive();
    }
    assertThat(values).hasSize(10).contains("v0", "v9");
  }

  @Test
  void tableIsCreatedAndQueriedThroughTheVertxPgClient(Infra infra) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      PgConnectOptions options =
          new PgConnectOptions()
              .setHost(infra.pgHost())
              .setPort(infra.pgPort())
              .setDatabase(infra.database())
              .setUser(infra.pgUser())
              .setPassword(infra.pgPassword());
      Pool pool = PgBuilder.pool().connectingTo(options).using(vertx).build();
      RowSet<Row> rows =
          pool.query("CREATE TABLE devices (id text PRIMARY KEY, launches int)")
              .execute()
              .compose(v -> pool.preparedQuery("INSERT INTO devices VALUES ($1, $2)").execute(Tuple.of("d1", 3)))
              .compose(v -> pool.query("SELECT id, launches, current_database() FROM devices").execute())
              .toCompletionStage()
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);

      Row row = rows.iterator().next();
      assertThat(row.getString(0)).isEqualTo("d1");
      assertThat(row.getInteger(1)).isEqualTo(3);
      assertThat(row.getString(2)).as("the class's own database").isEqualTo(infra.database());
      pool.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void eachTestClassGetsItsOwnPrefixAndDatabase(Infra infra) {
    assertThat(infra.topicPrefix()).startsWith("t_realinfrastructureit_").endsWith(".");
    assertThat(infra.database()).isEqualTo(infra.topicPrefix().substring(0, infra.topicPrefix().length() - 1));
    assertThat(new String(infra.database().getBytes(StandardCharsets.US_ASCII), StandardCharsets.US_ASCII))
        .matches("[a-z0-9_]+");
  }

  @Test
  void s3ServerStoresObjectsWithMetadataChecksSignaturesAndExpiresPresignedUrls(S3Bucket s3) throws Exception {
    assertThat(s3.bucket()).startsWith("t-realinfrastructureit-");
    try (S3Client c = s3.client()) {
      c.putObject(r -> r.bucket(s3.bucket()).key("a/b").contentType("image/png").metadata(Map.of("md5hex", "x")), RequestBody.fromString("hello"));
      HeadObjectResponse h = c.headObject(r -> r.bucket(s3.bucket()).key("a/b"));
      assertThat(h.contentLength()).isEqualTo(5);
      assertThat(h.contentType()).isEqualTo("image/png");
      assertThat(h.metadata()).containsEntry("md5hex", "x");
      assertThat(c.listObjectsV2(r -> r.bucket(s3.bucket()).prefix("a/")).contents()).extracting(S3Object::key).containsExactly("a/b");
    }
    try (S3Client wrong = s3.withSecret("not-the-secret").client()) {
      assertThatThrownBy(() -> wrong.headBucket(r -> r.bucket(s3.bucket())))
          .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));
    }
    try (S3Presigner p =
        S3Presigner.builder()
            .endpointOverride(URI.create(s3.endpoint()))
            .region(Region.of(s3.region()))
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
            .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
            .build()) {
      String url = p.presignGetObject(r -> r.signatureDuration(Duration.ofSeconds(2)).getObjectRequest(g -> g.bucket(s3.bucket()).key("a/b"))).url().toString();
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> ok = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("hello");
      Thread.sleep(3_500);
      HttpResponse<String> expired = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(expired.statusCode()).as("an expired presigned URL is refused: %s", expired.body()).isEqualTo(403);
    }
  }
}
