package dev.updraft.controlplane.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TokensTest {
  @Test
  void secretsCarry256RandomBitsAndAreNeverRepeated() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      String s = Tokens.newSecret();
      assertThat(s).startsWith("updraft_");
      assertThat(Base64.getUrlDecoder().decode(s.substring("updraft_".length()))).hasSize(32);
      assertThat(seen.add(s)).isTrue();
    }
    assertThat(Tokens.newTokenId()).matches("tok_[0-9a-f]{12}");
  }

  @Test
  void storesOnlyTheSha256AndComparesAgainstIt() {
    // sha256("foo"), as in the token.issued golden file
    assertThat(Tokens.sha256Hex("foo")).isEqualTo("2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae");
    assertThat(Tokens.matches("foo", "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae")).isTrue();
    assertThat(Tokens.matches("fop", "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae")).isFalse();
    assertThat(Tokens.matches("foo", "not hex")).isFalse();
  }
}
