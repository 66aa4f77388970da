package dev.updraft.controlplane.signin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.controlplane.core.Role;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoleMapTest {
  private static final RoleMap MAP = RoleMap.parse(List.of(
      "# who              app   role",
      "group:mobile       shop  publish",
      "group:mobile       blog  read   # trailing comment",
      "group:admins       *     admin",
      "",
      "email:Ana@Example.com shop admin",
      "group:readers      *     read"), "roles.txt");

  @Test
  void aPersonGetsTheHighestRoleOfEveryRuleTheyMatchPerApp() {
    assertThat(MAP.grants(null, List.of("mobile"))).isEqualTo(Map.of("shop", Role.PUBLISH, "blog", Role.READ));
    assertThat(MAP.grants("ana@example.COM", List.of("mobile"))).isEqualTo(Map.of("shop", Role.ADMIN, "blog", Role.READ));
    assertThat(MAP.grants(null, List.of("readers", "mobile"))).containsEntry("*", Role.READ).containsEntry("shop", Role.PUBLISH);
    assertThat(MAP.grants("bo@example.com", List.of("sales", "Mobile"))).as("groups compare exactly").isEmpty();
  }

  @Test
  void aWildcardRoleAppliesToEveryAppUnlessTheAppsOwnIsHigher() {
    Person p = new Person("s", null, null, MAP.grants(null, List.of("readers", "mobile")), java.time.Instant.EPOCH);
    assertThat(p.roleOn("shop")).isEqualTo(Role.PUBLISH);
    assertThat(p.roleOn("anything")).isEqualTo(Role.READ);
    Person admin = new Person("s", null, null, MAP.grants(null, List.of("admins", "mobile")), java.time.Instant.EPOCH);
    assertThat(admin.roleOn("blog")).isEqualTo(Role.ADMIN);
    assertThat(new Person("s", null, null, MAP.grants(null, List.of("mobile")), java.time.Instant.EPOCH).roleOn("other")).isNull();
  }

  @Test
  void aBadLineStopsTheStartNamingItsNumberAndTheProblem() {
    assertThatThrownBy(() -> RoleMap.parse(List.of("group:a shop publish", "team:b shop read"), "r"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("r line 2").hasMessageContaining("group: or email:");
    assertThatThrownBy(() -> RoleMap.parse(List.of("group:a shop owner"), "r")).hasMessageContaining("line 1").hasMessageContaining("unknown role 'owner'");
    assertThatThrownBy(() -> RoleMap.parse(List.of("group:a Shop! read"), "r")).hasMessageContaining("neither an app id nor *");
    assertThatThrownBy(() -> RoleMap.parse(List.of("group:a shop"), "r")).hasMessageContaining("expected 'group:");
    assertThatThrownBy(() -> RoleMap.parse(List.of("email: shop read"), "r")).hasMessageContaining("names no group or email");
    assertThatThrownBy(() -> RoleMap.parse(List.of("# nothing"), "r")).hasMessageContaining("no rule");
  }
}
