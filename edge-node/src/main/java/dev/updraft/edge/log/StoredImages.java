package dev.updraft.edge.log;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Where an edge keeps its image ({@code --data-dir}) and where it reads the control plane's when it has none of its
 * own ({@code --image-source}), and how long a start with one waits for Kafka before serving it.
 *
 * @param dataDir nullable: where the file is
 * @param interval how often it is written when it changed ({@code --image-interval})
 * @param serveAfter how long a start with a stored image waits for Kafka before serving it ({@code --stored-image-after})
 * @param source nullable: the asset storage the control plane writes its edge images to
 */
public record StoredImages(Path dataDir, Duration interval, Duration serveAfter, ImageSource source) {}
