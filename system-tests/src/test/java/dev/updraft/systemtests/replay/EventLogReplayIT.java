package dev.updraft.systemtests.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.edge.EdgeNode;
import dev.updraft.events.Topics;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * "What did device X get?" can be answered again later: the event log recorded by one deployment,
 * replayed into a fresh edge, gives byte-identical answers to the device requests the first edge
 * recorded (with {@code --record-requests}).
 */
@ExtendWith(RealInfrastructure.class)
class EventLogReplayIT {
  @TempDir Path work;

  @Test
  void aFreshEdgeFedTheRecordedLogAnswersTheRecordedRequestsTheSame(Infra infra) throws Exception {
    Path recording = work.resolve("requests.jsonl");
    try (Stack stack = Stack.start(infra, work.resolve("data"))) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", "replay", "--certificate", Fixtures.certificatePem().toString(), "--private-key", Fixtures.privateKeyPkcs1Pem().toString());
      JsonNode first = cli.json("publish", "--app", "replay", "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update1().toString());
      cli.json("publish", "--app", "replay", "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update2().toString(), "--rollout-percentage", "40");
      cli.json("publish", "--app", "replay", "--branch", "beta", "--runtime-version", "1.0.0", "--dist", Fixtures.update2().toString());
      cli.json("channel", "--app", "replay", "--channel", "production", "--branch", "main", "--rollout-branch", "beta", "--percentage", "25");
      cli.json("rollback", "--app", "replay", "--branch", "old", "--runtime-version", "1.0.0", "--embedded", "--platform", "ios");

      EdgeNode recorder = stack.startEdge("recorder", Map.of("record-requests", recording.toString(), "record-sample-rate", "1"));
      List<String> knownIds = new ArrayList<>();
      first.path("platforms").forEach(p -> knownIds.add(p.path("updateId").asText()));
      List<Answer> answers = new ArrayList<>();
      Random random = new Random(20261130);
      for (int i = 0; i < 300; i++) {
        answers.add(askManifest("http://127.0.0.1:" + recorder.port(), randomDevice(random, knownIds)));
      }
      Stack.await(recorder.close()); // flushes the recording

      // a fresh log holding the same records, and a fresh edge reading it
      String freshPrefix = infra.topicPrefix() + "fresh.";
      int copied = copyEventLog(infra, Topics.events(infra.topicPrefix()), Topics.events(freshPrefix));
      assertThat(copied).as("events copied").isGreaterThanOrEqualTo(6);
      EdgeNode fresh = stack.startEdge("fresh", Map.of("topic-prefix", freshPrefix, "checkins", "false"));

      List<String> lines = Files.readAllLines(recording, StandardCharsets.UTF_8);
      assertThat(lines).as("every request recorded, in order").hasSize(answers.size());
      ObjectMapper json = new ObjectMapper();
      int updates = 0;
      for (int i = 0; i < lines.size(); i++) {
        JsonNode rec = json.readTree(lines.get(i));
        List<String> headers = new ArrayList<>();
        for (Map.Entry<String, JsonNode> h : rec.path("headers").properties()) {
          headers.add(h.getKey());
          headers.add(h.getValue().asText());
        }
        String query = rec.path("query").asText("");
        Answer again = ask("http://127.0.0.1:" + fresh.port() + rec.path("path").asText() + (query.isEmpty() ? "" : "?" + query), headers);
        Answer original = answers.get(i);
        assertThat(again.status).as("request %d status", i).isEqualTo(original.status);
        assertThat(again.body).as("request %d body", i).isEqualTo(original.body);
        assertThat(again.signature).as("request %d signature header", i).isEqualTo(original.signature);
        if (original.body.contains("\"launchAsset\"")) {
          updates++;
        }
      }
      assertThat(updates).as("the sample includes served updates").isGreaterThan(50);
      Stack.await(fresh.close());
    }
  }

  record Answer(int status, String body, String signature) {}

  private static List<String> randomDevice(Random r, List<String> knownIds) {
    String platform = r.nextInt(10) < 6 ? "ios" : "android";
    String clientId = new UUID(r.nextLong(), r.nextLong()).toString();
    List<String> h = new ArrayList<>(List.of(
        "expo-platform", platform,
        "expo-runtime-version", r.nextInt(20) == 0 ? "2.0.0" : "1.0.0",
        "expo-channel-name", List.of("production", "main", "beta", "old").get(r.nextInt(4)),
        "expo-protocol-version", r.nextInt(5) == 0 ? "0" : "1",
        "eas-client-id", platform.equals("ios") ? clientId.toUpperCase(java.util.Locale.ROOT) : clientId,
        "accept", "multipart/mixed,application/expo+json,application/json"));
    if (r.nextBoolean()) {
      h.addAll(List.of("expo-expect-signature", "sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\""));
    }
    if (r.nextInt(3) == 0) {
      h.addAll(List.of("expo-current-update-id", knownIds.get(r.nextInt(knownIds.size()))));
    }
    return h;
  }

  private static Answer askManifest(String base, List<String> headers) throws Exception {
    return ask(base + "/apps/replay/manifest", headers);
  }

  private static Answer ask(String url, List<String> headers) throws Exception {
    HttpResponse<String> r = Http.get(url, headers.toArray(new String[0]));
    String sig = r.headers().firstValue("expo-signature").orElse(null);
    return new Answer(r.statusCode(), r.body(), sig);
  }

  private static int copyEventLog(Infra infra, String from, String to) throws Exception {
    Properties admin = new Properties();
    admin.put("bootstrap.servers", infra.kafkaBootstrap());
    int partitions;
    try (Admin a = Admin.create(admin)) {
      partitions = a.describeTopics(List.of(from)).allTopicNames().get(30, TimeUnit.SECONDS).get(from).partitions().size();
      a.createTopics(List.of(new NewTopic(to, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    Properties c = new Properties();
    c.put("bootstrap.servers", infra.kafkaBootstrap());
    c.put("isolation.level", "read_committed");
    c.put("key.deserializer", ByteArrayDeserializer.class.getName());
    c.put("value.deserializer", ByteArrayDeserializer.class.getName());
    Properties p = new Properties();
    p.put("bootstrap.servers", infra.kafkaBootstrap());
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    p.put("enable.idempotence", "true");
    int copied = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c);
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        tps.add(new TopicPartition(from, i));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline) {
        boolean done = true;
        for (TopicPartition tp : tps) {
          done &= consumer.position(tp) >= end.get(tp);
        }
        if (done) {
          break;
        }
        for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(200))) {
          producer.send(new ProducerRecord<>(to, rec.partition(), rec.key(), rec.value())).get();
          copied++;
        }
      }
    }
    return copied;
  }
}
