package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.Settings;
import io.vertx.core.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * The address bucket: one network prefix (IPv4 /24, IPv6 /48) is one bucket, the bucket is the keyed hash and not
 * the address, X-Forwarded-For counts only when trusted, and the key flags are checked.
 */
class AddressBucketsTest {
  private static final byte[] KEY = "deployment-key-0123456789".getBytes(StandardCharsets.US_ASCII);

  private static SocketAddress peer(String ip) {
    return SocketAddress.inetSocketAddress(40000, ip);
  }

  @Test
  void theBucketIsTheKeyedHashOfTheIpv4Slash24AndOfTheIpv6Slash48() {
    AddressBuckets b = new AddressBuckets(KEY, false);

    // HMAC-SHA256(key, 4 || 203.0.113) and (key, 6 || 2001:0db8:1234), first 8 bytes, computed with Python's hmac
    assertThat(b.of(peer("203.0.113.7"), null)).isEqualTo("51f84c4455f46828");
    assertThat(b.of(peer("203.0.113.250"), null)).isEqualTo("51f84c4455f46828");
    assertThat(b.of(peer("::ffff:203.0.113.9"), null)).as("IPv4-mapped").isEqualTo("51f84c4455f46828");
    assertThat(b.of(peer("2001:db8:1234:ffff::1"), null)).isEqualTo("18015674d7194d68");
    assertThat(b.of(peer("2001:db8:1234::2"), null)).isEqualTo("18015674d7194d68");
  }

  @Test
  void neighbouringNetworksAndOtherKeysGiveOtherBuckets() {
    AddressBuckets b = new AddressBuckets(KEY, false);
    String one = b.of(peer("127.0.1.1"), null);

    assertThat(b.of(peer("127.0.2.1"), null)).isNotEqualTo(one);
    assertThat(b.of(peer("127.0.1.200"), null)).isEqualTo(one);
    assertThat(b.of(peer("2001:db8:1235::1"), null)).isNotEqualTo(b.of(peer("2001:db8:1234::1"), null));
    assertThat(new AddressBuckets("another-key-0123456789".getBytes(StandardCharsets.US_ASCII), false).of(peer("127.0.1.1"), null))
        .isNotEqualTo(one);
    assertThat(new AddressBuckets(null, false).of(peer("127.0.1.1"), null)).as("random key").isNotEqualTo(one).hasSize(16);
  }

  @Test
  void forwardedForCountsOnlyWhenTrustedAndThenItsLastEntry() {
    AddressBuckets trusting = new AddressBuckets(KEY, true);
    AddressBuckets plain = new AddressBuckets(KEY, false);
    String proxy = plain.of(peer("10.0.0.5"), null);

    assertThat(plain.of(peer("10.0.0.5"), "203.0.113.7")).isEqualTo(proxy);
    assertThat(trusting.of(peer("10.0.0.5"), "198.51.100.1, 203.0.113.7")).isEqualTo("51f84c4455f46828");
    assertThat(trusting.of(peer("10.0.0.5"), "not-an-address")).as("unreadable: the peer").isEqualTo(proxy);
    assertThat(trusting.of(peer("10.0.0.5"), "example.com")).as("never a name lookup").isEqualTo(proxy);
    assertThat(trusting.of(null, null)).isNull();
  }

  @Test
  void theKeyFlagsAreCheckedAndTheKeyNeverPrinted() {
    assertThatThrownBy(() -> AddressBuckets.from(settings(Map.of("address-bucket-key", "short"))))
        .hasMessageContaining("--address-bucket-key must be at least 16 characters");
    AddressBuckets b = AddressBuckets.from(settings(Map.of("address-bucket-key", "deployment-key-0123456789",
        "trust-forwarded-for", "true")));

    assertThat(b.of(peer("203.0.113.1"), null)).isEqualTo("51f84c4455f46828");
    assertThat(b.trustsForwardedFor()).isTrue();
    assertThat(b.toString()).doesNotContain("deployment-key");
  }

  @Test
  void aNetworkSeenAgainGetsTheSameBucketAsTheFirstTimeWhateverCameBetween() throws Exception {
    AddressBuckets b = new AddressBuckets(KEY, false);
    ThreadLocalRandom r = ThreadLocalRandom.current();
    int n = AddressBuckets.MEMO_SLOTS * 4; // more networks than a thread remembers: some evict others
    int[][] nets = new int[n][];
    for (int i = 0; i < n; i++) {
      nets[i] = new int[] {r.nextInt(256), r.nextInt(256), r.nextInt(256)};
    }
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < n; i++) {
        int[] x = nets[round == 0 ? i : r.nextInt(n)];
        String ip = x[0] + "." + x[1] + "." + x[2] + "." + r.nextInt(256);
        assertThat(b.of(peer(ip), null)).as(ip).isEqualTo(hmac(new byte[] {4, (byte) x[0], (byte) x[1], (byte) x[2]}));
      }
    }
    for (int i = 0; i < 200; i++) {
      byte[] p = new byte[7];
      r.nextBytes(p);
      p[0] = 6;
      p[1] = (byte) (0x20 | (p[1] & 0x0F)); // a global unicast prefix, never read as IPv4-mapped
      String ip = String.format("%02x%02x:%02x%02x:%02x%02x::%x", p[1], p[2], p[3], p[4], p[5], p[6], 1 + r.nextInt(0xffff));
      assertThat(b.of(peer(ip), null)).as(ip).isEqualTo(hmac(p));
      assertThat(b.of(peer(ip), null)).as(ip + " again").isEqualTo(hmac(p));
    }
  }

  @Test
  void onlyCanonicalDottedQuadsTakeTheShortReadingAndOtherTextIsReadAsBefore() {
    assertThat(AddressBuckets.v4Prefix("203.0.113.7")).isEqualTo(4L << 24 | 203 << 16 | 0 << 8 | 113);
    assertThat(AddressBuckets.v4Prefix("255.255.255.255")).isEqualTo(4L << 24 | 0xFFFFFF);
    for (String other : new String[] {"203.0.113", "203.0.113.7.1", "203.0.113.256", "203.00.113.7", "203..113.7",
        "203.0.113.7 ", "203.0.113.", ".203.0.113", "2001:db8::1", "[203.0.113.7]", "203.0.113.7%1", "1234.0.113.7", "", null}) {
      assertThat(AddressBuckets.v4Prefix(other)).as(String.valueOf(other)).isEqualTo(-1);
    }
    AddressBuckets b = new AddressBuckets(KEY, false);
    assertThat(b.of(peer("203.0.113.07"), null)).as("a leading zero: read by InetAddress, as before")
        .isEqualTo(b.bucket(AddressBuckets.literal("203.0.113.07")));
  }

  private static String hmac(byte[] prefix) throws Exception {
    Mac m = Mac.getInstance("HmacSHA256");
    m.init(new SecretKeySpec(KEY, "HmacSHA256"));
    return HexFormat.of().formatHex(m.doFinal(prefix), 0, 8);
  }

  private static Settings settings(Map<String, String> flags) {
    return Settings.of(flags, Map.of());
  }
}
