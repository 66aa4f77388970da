package dev.updraft.controlplane.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TopicSetupTest {

  @Test
  void shouldReplicateThreeTimesWithTwoInSyncWhenTheClusterHasThreeOrMoreBrokers() {
    assertThat(TopicSetup.Replication.choose(0, 0, 3, "k")).isEqualTo(new TopicSetup.Replication(3, 2));
    assertThat(TopicSetup.Replication.choose(0, 0, 7, "k")).isEqualTo(new TopicSetup.Replication(3, 2));
  }

  @Test
  void shouldReplicateOnEveryBrokerWhenTheClusterHasFewerThanThree() {
    assertThat(TopicSetup.Replication.choose(0, 0, 1, "k")).isEqualTo(new TopicSetup.Replication(1, 1));
    assertThat(TopicSetup.Replication.choose(0, 0, 2, "k")).isEqualTo(new TopicSetup.Replication(2, 2));
  }

  @Test
  void shouldTakeTheFlagsWhenGivenAndDeriveTheInSyncCountFromTheFactor() {
    assertThat(TopicSetup.Replication.choose(2, 0, 5, "k")).isEqualTo(new TopicSetup.Replication(2, 2));
    assertThat(TopicSetup.Replication.choose(1, 0, 5, "k")).isEqualTo(new TopicSetup.Replication(1, 1));
    assertThat(TopicSetup.Replication.choose(5, 3, 5, "k")).isEqualTo(new TopicSetup.Replication(5, 3));
    assertThat(TopicSetup.Replication.choose(0, 1, 3, "k")).isEqualTo(new TopicSetup.Replication(3, 1));
  }

  @Test
  void shouldRefuseMoreReplicasThanBrokersOrMoreInSyncThanReplicasNamingTheFlag() {
    assertThatThrownBy(() -> TopicSetup.Replication.choose(3, 0, 1, "kafka:9092"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("--replication-factor 3")
        .hasMessageContaining("kafka:9092 has 1");
    assertThatThrownBy(() -> TopicSetup.Replication.choose(0, 2, 1, "k"))
        .hasMessageContaining("--min-insync-replicas 2")
        .hasMessageContaining("replication factor 1");
    assertThatThrownBy(() -> TopicSetup.Replication.choose(0, 0, 0, "k")).hasMessageContaining("no brokers");
  }
}
