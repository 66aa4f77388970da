package dev.updraft.edge;

import static dev.updraft.edge.AcceptNegotiation.EXPO_JSON;
import static dev.updraft.edge.AcceptNegotiation.JSON;
import static dev.updraft.edge.AcceptNegotiation.MULTIPART;
import static dev.updraft.edge.AcceptNegotiation.NONE;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Accept negotiation per protocol.md §1, expected results worked out from RFC 7231 by hand. */
class AcceptNegotiationTest {

  @Test
  void clientsAcceptGetsMultipart() {
    assertThat(AcceptNegotiation.negotiate("multipart/mixed,application/expo+json,application/json")).isEqualTo(MULTIPART);
    assertThat(AcceptNegotiation.negotiate("multipart/mixed")).isEqualTo(MULTIPART);
  }

  @Test
  void noAcceptOrWildcardsGetMultipart() {
    assertThat(AcceptNegotiation.negotiate(null)).isEqualTo(MULTIPART);
    assertThat(AcceptNegotiation.negotiate("*/*")).isEqualTo(MULTIPART);
    assertThat(AcceptNegotiation.negotiate("multipart/*")).isEqualTo(MULTIPART);
  }

  @Test
  void onlyJsonGetsTheJsonTypeAskedFor() {
    assertThat(AcceptNegotiation.negotiate("application/json")).isEqualTo(JSON);
    assertThat(AcceptNegotiation.negotiate("application/expo+json")).isEqualTo(EXPO_JSON);
    assertThat(AcceptNegotiation.negotiate("application/json, application/expo+json")).isEqualTo(EXPO_JSON);
    assertThat(AcceptNegotiation.negotiate("application/expo+json;q=0.5, application/json")).isEqualTo(JSON);
    assertThat(AcceptNegotiation.negotiate("application/*")).isEqualTo(EXPO_JSON);
  }

  @Test
  void qZeroExcludesAndMostSpecificRangeWins() {
    assertThat(AcceptNegotiation.negotiate("multipart/mixed;q=0, application/json")).isEqualTo(JSON);
    assertThat(AcceptNegotiation.negotiate("*/*;q=0.1, multipart/mixed;q=0")).isEqualTo(EXPO_JSON);
    assertThat(AcceptNegotiation.negotiate("*/*;q=0")).isEqualTo(NONE);
    assertThat(AcceptNegotiation.negotiate("multipart/mixed; q=0.2, application/json; q=1")).isEqualTo(MULTIPART);
  }

  @Test
  void nothingFittingIsNone() {
    assertThat(AcceptNegotiation.negotiate("text/html")).isEqualTo(NONE);
    assertThat(AcceptNegotiation.negotiate("image/png, text/*")).isEqualTo(NONE);
    assertThat(AcceptNegotiation.negotiate("application/json;q=abc")).isEqualTo(NONE);
  }

  @Test
  void typesAreCaseInsensitive() {
    assertThat(AcceptNegotiation.negotiate("Multipart/Mixed")).isEqualTo(MULTIPART);
    assertThat(AcceptNegotiation.negotiate("APPLICATION/JSON")).isEqualTo(JSON);
  }

  @Test
  void rangesOfOnlySeparatorsAreSkippedNotAnError() {
    // ";;;".split(";") is empty: such a range used to throw (found by the manifest fuzz)
    assertThat(AcceptNegotiation.negotiate(";;;;")).isEqualTo(NONE);
    assertThat(AcceptNegotiation.negotiate(",;,;")).isEqualTo(NONE);
    assertThat(AcceptNegotiation.negotiate(";, application/json")).isEqualTo(JSON);
  }
}
