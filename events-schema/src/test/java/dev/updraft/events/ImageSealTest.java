package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The edge image as written to the asset storage: sealed with one key it opens with that key to the same bytes, hides
 * them (no plaintext in the object), and a changed byte anywhere, a cut object or another key is refused as
 * {@code tampered}; the pointer names it with its digest and reads back.
 */
class ImageSealTest {
  static final String KEY = Base64.getEncoder().encodeToString(new byte[32]);
  static final String OTHER = Base64.getEncoder().encodeToString("another key of thirty-two bytes!".getBytes(StandardCharsets.US_ASCII));

  static byte[] image() {
    return new StoredImage(1_000, 900, "updraft.events", Map.of(0, 12L), Map.of("app", "snapshot".getBytes(StandardCharsets.UTF_8)),
        List.of(new StoredImage.EventRecord(0, 11, "app".getBytes(StandardCharsets.UTF_8), "token.issued secretSha256".getBytes(StandardCharsets.UTF_8))))
        .encode();
  }

  @Test
  void aSealedImageOpensWithItsKeyToTheSameBytesAndShowsNoneOfThem() {
    ImageSeal seal = ImageSeal.of(KEY, "--edge-image-key");
    byte[] image = image();
    byte[] sealed = seal.seal(image);
    assertThat(new String(sealed, StandardCharsets.ISO_8859_1)).doesNotContain("secretSha256").doesNotContain("updraft.events");
    ImageSeal.Opened opened = seal.open(sealed);
    assertThat(opened).isInstanceOf(ImageSeal.Opened.Image.class);
    assertThat(((ImageSeal.Opened.Image) opened).bytes()).isEqualTo(image);
    assertThat(seal.seal(image)).as("a fresh nonce every time").isNotEqualTo(sealed);
  }

  @Test
  void everyChangedByteACutObjectAndAnotherKeyAreRefusedAsTampered() {
    ImageSeal seal = ImageSeal.of(KEY, "--edge-image-key");
    byte[] sealed = seal.seal(image());
    for (int i = 12; i < sealed.length; i++) {
      byte[] changed = sealed.clone();
      changed[i] ^= 0x01;
      assertThat(seal.open(changed)).as("byte %d flipped", i).isInstanceOf(ImageSeal.Opened.Refused.class)
          .extracting(o -> ((ImageSeal.Opened.Refused) o).reason()).isEqualTo("tampered");
    }
    byte[] cut = java.util.Arrays.copyOf(sealed, sealed.length - 1);
    assertThat(((ImageSeal.Opened.Refused) seal.open(cut)).reason()).isEqualTo("tampered");
    assertThat(((ImageSeal.Opened.Refused) ImageSeal.of(OTHER, "k").open(sealed)).reason()).isEqualTo("tampered");
    byte[] otherVersion = sealed.clone();
    otherVersion[11] = 2;
    assertThat(((ImageSeal.Opened.Refused) seal.open(otherVersion)).reason()).isEqualTo("unknown-format");
    assertThat(((ImageSeal.Opened.Refused) seal.open(image())).reason()).as("an unsealed image").isEqualTo("unknown-format");
  }

  @Test
  void aKeyMustBeThirtyTwoBytesOfBase64AndIsNeverShown() {
    assertThatThrownBy(() -> ImageSeal.of("c2hvcnQ=", "--edge-image-key")).hasMessageContaining("--edge-image-key").hasMessageContaining("got 5 bytes");
    assertThatThrownBy(() -> ImageSeal.of("not base64!", "--edge-image-key")).hasMessageContaining("not base64").hasMessageNotContaining("not base64!");
    assertThat(ImageSeal.of(OTHER, "k").toString()).doesNotContain(OTHER);
  }

  @Test
  void aPointerNamesTheImageWithItsDigestAndReadsBack() {
    String sha = "ab".repeat(32);
    ImagePointer p = new ImagePointer(ImagePointer.imageName(1_767_225_600_000L, sha), sha, 1234, 1_767_225_600_000L);
    assertThat(p.name()).isEqualTo("image-00000001767225600000-abababab.sealed");
    assertThat(ImagePointer.decode(p.encode())).isEqualTo(p);
    assertThatThrownBy(() -> ImagePointer.decode("hello".getBytes(StandardCharsets.UTF_8))).hasMessageContaining("not an edge image pointer");
    assertThatThrownBy(() -> ImagePointer.decode("updraft-edge-image 1\nname=../../etc/passwd\nsha256=x\nsize=1\nwrittenAt=1\n"
        .getBytes(StandardCharsets.UTF_8))).hasMessageContaining("not an edge image name");
  }
}
