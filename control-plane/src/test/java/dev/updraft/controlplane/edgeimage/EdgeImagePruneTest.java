package dev.updraft.controlplane.edgeimage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The control plane keeps the newest {@code --edge-image-keep} edge images: the oldest go, the pointer's and other objects stay. */
class EdgeImagePruneTest {
  static final String A = "image-00000001767225600000-aaaaaaaa.sealed";
  static final String B = "image-00000001767225660000-bbbbbbbb.sealed";
  static final String C = "image-00000001767225720000-cccccccc.sealed";
  static final String D = "image-00000001767225780000-dddddddd.sealed";

  @Test
  void theOldestImagesBeyondKeepAreDeletedNeverThePointersNorOtherObjects() {
    assertThat(EdgeImageWriter.beyondNewest(List.of(D, "newest", B, A, C, ".tmp-file"), D, 3)).containsExactly(A);
    assertThat(EdgeImageWriter.beyondNewest(List.of(C, A, D, B, "newest"), D, 2)).containsExactly(A, B);
    assertThat(EdgeImageWriter.beyondNewest(List.of(A, "newest"), A, 2)).as("fewer than keep").isEmpty();
    // the pointer's image is kept even when another writer's names sort after it
    assertThat(EdgeImageWriter.beyondNewest(List.of(A, B, C, D), B, 2)).containsExactly(A, C);
  }
}
