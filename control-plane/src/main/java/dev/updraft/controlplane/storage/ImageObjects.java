package dev.updraft.controlplane.storage;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The edge images' area of the asset storage ({@link AssetStorage#edgeImages()}): small objects by name beside
 * the assets, under {@value #PREFIX} in a bucket or container ({@value #LOCAL_DIR} under the local storage's
 * directory, which no app id can name, so the local asset route never serves it). No URL is ever made for them:
 * they are written and read with the storage's credentials. Each object is written whole or not at all (an
 * object store's PUT, a rename on a disk), and may be replaced. Thread-safe; every method blocks.
 */
public interface ImageObjects {
  /** The key prefix in a bucket or container. */
  String PREFIX = "edge-images/";
  /** The directory under the local storage's. */
  String LOCAL_DIR = "_edge-images";
  /** The key prefix of an app's source maps ({@link AssetStorage#sourceMaps}) in a bucket or container, before the app id. */
  String MAPS_PREFIX = "source-maps/";
  /** The directory of source maps under the local storage's (no app id can name it, so no route serves it). */
  String MAPS_LOCAL_DIR = "_source-maps";
  /** What a name may be. */
  Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9.-]{0,127}");

  /** Writes (or replaces) the object. */
  void write(String name, byte[] bytes) throws IOException;

  /** The object's bytes, or null when there is none. */
  byte[] read(String name) throws IOException;

  /** Every object's name, in no particular order. */
  List<String> names() throws IOException;

  /** Deletes the object; deleting what is not there is harmless. */
  void delete(String name) throws IOException;

  /** Where, for logs and docs (never a credential). */
  String describe();

  private static String checked(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("bad edge image object name: " + name);
    }
    return name;
  }

  /** A directory; written to a temporary file, then renamed. */
  record Local(Path dir) implements ImageObjects {
    @Override
    public void write(String name, byte[] bytes) throws IOException {
      Files.createDirectories(dir);
      Path tmp = dir.resolve("." + checked(name) + ".tmp");
      Files.write(tmp, bytes);
      try {
        Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
      }
    }

    @Override
    public byte[] read(String name) throws IOException {
      try {
        return Files.readAllBytes(dir.resolve(checked(name)));
      } catch (NoSuchFileException e) {
        return null;
      }
    }

    @Override
    public List<String> names() throws IOException {
      if (!Files.isDirectory(dir)) {
        return List.of();
      }
      try (Stream<Path> s = Files.list(dir)) {
        return s.map(p -> p.getFileName().toString()).filter(n -> NAME.matcher(n).matches()).toList();
      }
    }

    @Override
    public void delete(String name) throws IOException {
      Files.deleteIfExists(dir.resolve(checked(name)));
    }

    @Override
    public String describe() {
      return dir.toAbsolutePath().toString();
    }
  }

  /** An S3 bucket. */
  record S3(S3Client s3, String bucket, String prefix) implements ImageObjects {
    /** The edge images' area. */
    public S3(S3Client s3, String bucket) {
      this(s3, bucket, PREFIX);
    }

    @Override
    public void write(String name, byte[] bytes) throws IOException {
      try {
        s3.putObject(r -> r.bucket(bucket).key(prefix + checked(name)).contentType("application/octet-stream").cacheControl("no-store"),
            RequestBody.fromBytes(bytes));
      } catch (SdkException e) {
        throw new IOException("writing " + prefix + name + " to bucket " + bucket + ": " + e.getMessage(), e);
      }
    }

    @Override
    public byte[] read(String name) throws IOException {
      try {
        return s3.getObjectAsBytes(r -> r.bucket(bucket).key(prefix + checked(name))).asByteArray();
      } catch (NoSuchKeyException e) {
        return null;
      } catch (S3Exception e) {
        if (e.statusCode() == 404) {
          return null;
        }
        throw new IOException("reading " + prefix + name + " from bucket " + bucket + ": " + e.getMessage(), e);
      } catch (SdkException e) {
        throw new IOException("reading " + prefix + name + " from bucket " + bucket + ": " + e.getMessage(), e);
      }
    }

    @Override
    public List<String> names() throws IOException {
      List<String> out = new ArrayList<>();
      try {
        s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix)).contents()
            .forEach(o -> out.add(o.key().substring(prefix.length())));
      } catch (SdkException e) {
        throw new IOException("listing " + prefix + " of bucket " + bucket + ": " + e.getMessage(), e);
      }
      return out;
    }

    @Override
    public void delete(String name) throws IOException {
      try {
        s3.deleteObject(r -> r.bucket(bucket).key(prefix + checked(name)));
      } catch (SdkException e) {
        throw new IOException("deleting " + prefix + name + " of bucket " + bucket + ": " + e.getMessage(), e);
      }
    }

    @Override
    public String describe() {
      return "s3://" + bucket + "/" + prefix;
    }
  }

  /** A Google Cloud Storage bucket. */
  record Gcs(Storage storage, String bucket, String prefix) implements ImageObjects {
    /** The edge images' area. */
    public Gcs(Storage storage, String bucket) {
      this(storage, bucket, PREFIX);
    }

    @Override
    public void write(String name, byte[] bytes) throws IOException {
      try {
        storage.create(BlobInfo.newBuilder(BlobId.of(bucket, prefix + checked(name))).setContentType("application/octet-stream")
            .setCacheControl("no-store").build(), bytes);
      } catch (StorageException e) {
        throw new IOException("writing " + prefix + name + " to gs://" + bucket + ": " + e.getMessage(), e);
      }
    }

    @Override
    public byte[] read(String name) throws IOException {
      try {
        Blob b = storage.get(BlobId.of(bucket, prefix + checked(name)));
        return b == null ? null : b.getContent();
      } catch (StorageException e) {
        if (e.getCode() == 404) {
          return null;
        }
        throw new IOException("reading " + prefix + name + " from gs://" + bucket + ": " + e.getMessage(), e);
      }
    }

    @Override
    public List<String> names() throws IOException {
      List<String> out = new ArrayList<>();
      try {
        for (Blob b : storage.list(bucket, Storage.BlobListOption.prefix(prefix)).iterateAll()) {
          out.add(b.getName().substring(prefix.length()));
        }
      } catch (StorageException e) {
        throw new IOException("listing " + prefix + " of gs://" + bucket + ": " + e.getMessage(), e);
      }
      return out;
    }

    @Override
    public void delete(String name) throws IOException {
      try {
        storage.delete(BlobId.of(bucket, prefix + checked(name)));
      } catch (StorageException e) {
        throw new IOException("deleting " + prefix + name + " of gs://" + bucket + ": " + e.getMessage(), e);
      }
    }

    @Override
    public String describe() {
      return "gs://" + bucket + "/" + prefix;
    }
  }

  /** An Azure Blob Storage container. */
  record Azure(BlobContainerClient container, String prefix) implements ImageObjects {
    /** The edge images' area. */
    public Azure(BlobContainerClient container) {
      this(container, PREFIX);
    }

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @Override
    public void write(String name, byte[] bytes) throws IOException {
      try {
        container.getBlobClient(prefix + checked(name)).upload(BinaryData.fromBytes(bytes), true);
      } catch (BlobStorageException e) {
        throw new IOException("writing " + prefix + name + " to container " + container.getBlobContainerName() + ": " + e.getMessage(), e);
      }
    }

    @Override
    public byte[] read(String name) throws IOException {
      try {
        return container.getBlobClient(prefix + checked(name)).downloadContent().toBytes();
      } catch (BlobStorageException e) {
        if (e.getStatusCode() == 404) {
          return null;
        }
        throw new IOException("reading " + prefix + name + " from container " + container.getBlobContainerName() + ": " + e.getMessage(), e);
      }
    }

    @Override
    public List<String> names() throws IOException {
      List<String> out = new ArrayList<>();
      try {
        for (BlobItem b : container.listBlobs(new ListBlobsOptions().setPrefix(prefix), TIMEOUT)) {
          out.add(b.getName().substring(prefix.length()));
        }
      } catch (BlobStorageException e) {
        throw new IOException("listing " + prefix + " of container " + container.getBlobContainerName() + ": " + e.getMessage(), e);
      }
      return out;
    }

    @Override
    public void delete(String name) throws IOException {
      try {
        container.getBlobClient(prefix + checked(name)).deleteIfExists();
      } catch (BlobStorageException e) {
        throw new IOException("deleting " + prefix + name + " of container " + container.getBlobContainerName() + ": " + e.getMessage(), e);
      }
    }

    @Override
    public String describe() {
      return container.getBlobContainerUrl() + "/" + prefix;
    }
  }
}
