package dev.updraft.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dev-mode infrastructure is real and keeps its data across a restart on the same directory. */
class EmbeddedInfrastructureIT {

  @TempDir Path dir;

  @Test
  void kafkaKeepsRecordsAcrossARestartOnTheSameDataDir() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, 0)) {
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
        admin.createTopics(List.of(new NewTopic("t", 2, (short) 1))).all().get();
      }
      produce(kafka.bootstrapServers(), "first");
      kafka.stop();
      assertThat(Ports.inUse(kafka.port())).as("port released after stop").isFalse();

      kafka.restart();
      produce(kafka.bootstrapServers(), "second");

      assertThat(consumeAll(kafka.bootstrapServers(), 2)).containsExactlyInAnyOrder("first", "second");
    }
  }

  @Test
  void postgresKeepsRowsAcrossARestartOnTheSameDataDir() throws Exception {
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0, false)) {
      pg.createDatabase("updraft_test");
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl("updraft_test"));
          Statement st = c.createStatement()) {
        st.execute("CREATE TABLE kept (v text)");
        st.execute("INSERT INTO kept VALUES ('row')");
      }
      pg.stop();
      assertThat(Ports.inUse(pg.port())).as("port released after stop").isFalse();

      pg.restart();
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl("updraft_test"));
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT v, current_setting('server_version_num')::int FROM kept")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("row");
        assertThat(rs.getInt(2)).as("PostgreSQL major version").isBetween(170000, 179999);
      }
    }
  }

  private static void produce(String bootstrap, String value) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      producer.send(new ProducerRecord<>("t", value.getBytes(StandardCharsets.UTF_8))).get();
    }
  }

  private static List<String> consumeAll(String bootstrap, int expected) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "g");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<String> seen = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(Set.of("t"));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (seen.size() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          seen.add(new String(r.value(), StandardCharsets.UTF_8));
        }
      }
    }
    return seen;
  }
}
