package dev.updraft.controlplane.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.testing.Fixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyStoreTest {
  static final String CERT = "c0".repeat(32);

  static PrivateKey key() throws Exception {
    return PemKeys.parsePrivateKey(Files.readString(Fixtures.privateKeyPkcs1Pem()));
  }

  @Test
  void keepsKeysInAnOwnerOnlyDirectoryAndFiles(@TempDir Path dir) throws Exception {
    Path store = dir.resolve("keys");
    KeyStore ks = new KeyStore(store, null);
    ks.save("demo", CERT, key());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store))).isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.resolve("demo")))).isEqualTo("rwx------");
    Path file = store.resolve("demo").resolve(CERT + ".key");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    assertThat(new KeyStore(store, null).load("demo", CERT).getEncoded()).isEqualTo(key().getEncoded());
    assertThat(new KeyStore(store, null).load("demo", "d0".repeat(32))).isNull();
  }

  @Test
  void aSweepDestroysTheKeysOfAppsTheLogDoesNotHoldAndKeepsTheOthers(@TempDir Path dir) throws Exception {
    Path store = dir.resolve("keys");
    KeyStore ks = new KeyStore(store, null);
    ks.save("live", CERT, key());
    ks.save("deleted", CERT, key());
    ks.save("deleted", "d0".repeat(32), key());
    Files.writeString(store.resolve("README"), "not an app"); // a stray file is left alone
    assertThat(ks.load("deleted", CERT)).isNotNull();

    assertThat(ks.sweep(Set.of("live", "never-stored"))).containsExactly("deleted");
    assertThat(store.resolve("deleted")).doesNotExist();
    assertThat(ks.load("deleted", CERT)).as("not from the cache either").isNull();
    assertThat(new KeyStore(store, null).load("live", CERT).getEncoded()).isEqualTo(key().getEncoded());
    assertThat(store.resolve("README")).exists();
    assertThat(ks.sweep(Set.of("live"))).isEmpty();
    assertThat(new KeyStore(dir.resolve("empty"), null).sweep(Set.of())).isEmpty();
  }

  @Test
  void tightensAStoreDirectoryOthersCouldRead(@TempDir Path dir) throws Exception {
    Path store = Files.createDirectory(dir.resolve("open"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    new KeyStore(store, null);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store))).isEqualTo("rwx------");
  }

  @Test
  void sealsKeysUnderAMasterKeySoTheFileHoldsNoKeyMaterial(@TempDir Path dir) throws Exception {
    byte[] master = new byte[32];
    Arrays.fill(master, (byte) 7);
    KeyStore ks = new KeyStore(dir, master);
    ks.save("demo", CERT, key());
    String content = Files.readString(dir.resolve("demo").resolve(CERT + ".key"), StandardCharsets.US_ASCII);
    assertThat(content).startsWith("updraft-sealed-key-v1").doesNotContain("PRIVATE KEY");
    assertThat(new KeyStore(dir, master).load("demo", CERT).getEncoded()).isEqualTo(key().getEncoded());

    byte[] wrong = new byte[32];
    assertThatThrownBy(() -> new KeyStore(dir, wrong).load("demo", CERT)).hasMessageContaining("wrong --master-key");
    assertThatThrownBy(() -> new KeyStore(dir, null).load("demo", CERT)).hasMessageContaining("--master-key");
    // a sealed file moved to another app does not open (the app id is authenticated data)
    Files.createDirectories(dir.resolve("other"));
    Files.copy(dir.resolve("demo").resolve(CERT + ".key"), dir.resolve("other").resolve(CERT + ".key"));
    assertThatThrownBy(() -> new KeyStore(dir, master).load("other", CERT)).hasMessageContaining("cannot unseal");
  }

  @Test
  void exercisingTheLoadPathGivesTheKeyBackAndStoresNothing(@TempDir Path dir) throws Exception {
    byte[] master = java.util.Base64.getDecoder().decode(Fixtures.masterKey());
    for (KeyStore ks : new KeyStore[] {new KeyStore(dir.resolve("sealed"), master), new KeyStore(dir.resolve("plain"), null)}) {
      assertThat(ks.exercise(key()).getEncoded()).isEqualTo(key().getEncoded());
      try (var files = Files.list(ks.directory())) {
        assertThat(files.toList()).as("no file, no app directory").isEmpty();
      }
      assertThat(ks.load("warm-up", "0".repeat(64))).as("not cached under the address it was sealed for").isNull();
    }
  }
}
