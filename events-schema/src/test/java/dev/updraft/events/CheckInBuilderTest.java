package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The builder puts every field where its name says (fields of one type could otherwise swap silently). */
class CheckInBuilderTest {

  private static CheckIn full() {
    return CheckIn.builder()
        .v(7)
        .checkInId("id")
        .appId("app")
        .platform("ios")
        .runtimeVersion("rt")
        .channel("ch")
        .clientId("client")
        .currentUpdateId("current")
        .embeddedUpdateId("embedded")
        .failedUpdateIds(List.of("f1", "f2"))
        .outcome("outcome")
        .reason("reason")
        .branch("branch")
        .inBranchRollout(true)
        .rolloutBucket(42)
        .servedUpdateId("served")
        .servedGroupId("group")
        .fatalError("fatal")
        .atEpochMillis(1234L)
        .edgeId("edge")
        .build();
  }

  @Test
  void setsEachFieldByItsName() {
    CheckIn c = full();
    assertThat(c.v()).isEqualTo(7);
    assertThat(c.checkInId()).isEqualTo("id");
    assertThat(c.appId()).isEqualTo("app");
    assertThat(c.platform()).isEqualTo("ios");
    assertThat(c.runtimeVersion()).isEqualTo("rt");
    assertThat(c.channel()).isEqualTo("ch");
    assertThat(c.clientId()).isEqualTo("client");
    assertThat(c.currentUpdateId()).isEqualTo("current");
    assertThat(c.embeddedUpdateId()).isEqualTo("embedded");
    assertThat(c.failedUpdateIds()).containsExactly("f1", "f2");
    assertThat(c.outcome()).isEqualTo("outcome");
    assertThat(c.reason()).isEqualTo("reason");
    assertThat(c.branch()).isEqualTo("branch");
    assertThat(c.inBranchRollout()).isTrue();
    assertThat(c.rolloutBucket()).isEqualTo(42);
    assertThat(c.servedUpdateId()).isEqualTo("served");
    assertThat(c.servedGroupId()).isEqualTo("group");
    assertThat(c.fatalError()).isEqualTo("fatal");
    assertThat(c.atEpochMillis()).isEqualTo(1234L);
    assertThat(c.edgeId()).isEqualTo("edge");
  }

  @Test
  void copiesEveryFieldAndChangesOnlyWhatIsSet() {
    CheckIn c = full();
    assertThat(c.toBuilder().build()).isEqualTo(c);
    CheckIn other = c.toBuilder().channel("other").build();
    assertThat(other.channel()).isEqualTo("other");
    assertThat(other.toBuilder().channel("ch").build()).isEqualTo(c);
  }

  @Test
  void startsAtTheCurrentVersionWithNoFailedIds() {
    CheckIn c = CheckIn.builder().checkInId("id").appId("app").platform("android").build();
    assertThat(c.v()).isEqualTo(CheckIn.CURRENT_VERSION);
    assertThat(c.failedUpdateIds()).isEmpty();
    assertThat(c.clientId()).isNull();
    assertThat(c.rolloutBucket()).isNull();
    assertThat(c.inBranchRollout()).isFalse();
  }

  @Test
  void encodesTheSameFieldsAsBefore() throws Exception {
    CheckIn c = full();
    assertThat(CheckInCodec.decode(CheckInCodec.encode(c))).isEqualTo(c);
    assertThat(new String(CheckInCodec.encode(c), java.nio.charset.StandardCharsets.UTF_8))
        .as("the builder is not a property of the wire format")
        .doesNotContain("builder");
  }
}
