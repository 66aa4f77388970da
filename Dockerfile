# One image for every Updraft service: `control-plane`, `edge`, `ingest` (and the CLI commands).
# Build: docker build -t updraft .      Run: docker run updraft edge --kafka-bootstrap kafka:9092
# Both base images are pinned by digest (the multi-arch index of the tag named beside it), so a rebuild gets the
# same bytes; move a pin on purpose: `docker buildx imagetools inspect eclipse-temurin:17-jre` prints the tag's
# current digest. The image carries the CycloneDX SBOM the build writes (/opt/updraft/sbom.json).
FROM eclipse-temurin:17-jdk@sha256:5d6042fb8cdc14d614e4e421f52e3211fc5aeadddce44cbf9de8ed37c791f824 AS build
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml ./
COPY events-schema events-schema
COPY common common
COPY embedded embedded
COPY test-support test-support
COPY db-schema db-schema
COPY ingester ingester
COPY control-plane control-plane
COPY console-tests console-tests
COPY edge-node edge-node
COPY cli cli
COPY load load
COPY launcher launcher
COPY system-tests system-tests
RUN ./mvnw -B -q -DskipTests -pl launcher -am package

FROM eclipse-temurin:17-jre@sha256:207ecae0b2b104dfc6dfa763d1e9cd2041cb344800a180e24cb1a28ed533ff90
RUN useradd --system --uid 10001 --home-dir /data updraft && mkdir -p /data && chown updraft /data
COPY --from=build /src/launcher/target/updraft.jar /opt/updraft/updraft.jar
COPY --from=build /src/launcher/target/lib /opt/updraft/lib
COPY --from=build /src/launcher/target/updraft-sbom.json /opt/updraft/sbom.json
USER updraft
WORKDIR /data
ENV UPDRAFT_DATA_DIR=/data
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-cp", "/opt/updraft/updraft.jar:/opt/updraft/lib/*", "dev.updraft.launcher.Updraft"]
CMD ["--help"]
