package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UpdateGroupTest {
  private static final PlatformUpdate IOS =
      new PlatformUpdate("ios", "11111111-1111-4111-8111-111111111111", "2026-12-01T08:00:00.000Z", "{\"id\":1}",
          "sig=\"a\"", "launch-ios", List.of("launch-ios", "png"));
  private static final PlatformUpdate ANDROID =
      new PlatformUpdate("android", "22222222-2222-4222-8222-222222222222", "2026-12-01T08:00:00.000Z", "{\"id\":2}",
          null, "launch-android", List.of("launch-android"));
  private static final UpdateGroup GROUP =
      new UpdateGroup("g1", UpdateGroup.KIND_UPDATE, "production", "1.0.0", "m", "abc", "key", null, null,
          List.of(IOS, ANDROID));

  @Test
  void renewalReplacesOnlyTheBodyAndSignatureOfTheEntryItNames() {
    UpdateGroup renewed = GROUP.renewed(Map.of(IOS.updateId(), new Renewal(IOS.updateId(), "{\"id\":3}", "sig=\"b\"")));

    assertThat(renewed.platform("ios")).isEqualTo(new PlatformUpdate("ios", "11111111-1111-4111-8111-111111111111",
        "2026-12-01T08:00:00.000Z", "{\"id\":3}", "sig=\"b\"", "launch-ios", List.of("launch-ios", "png")));
    assertThat(renewed.platform("android")).isSameAs(ANDROID);
    assertThat(renewed.groupId()).isEqualTo("g1");
    assertThat(renewed.idempotencyKey()).isEqualTo("key");
  }

  @Test
  void renewalOfAnotherGroupsEntryLeavesTheGroupAsItWas() {
    assertThat(GROUP.renewed(Map.of("33333333-3333-4333-8333-333333333333",
        new Renewal("33333333-3333-4333-8333-333333333333", "{}", null)))).isSameAs(GROUP);
  }
}
