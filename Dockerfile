# One image for every Updraft service: `control-plane`, `edge`, `ingest` (and the CLI commands).
# Build: docker build -t updraft .      Run: docker run updraft edge --kafka-bootstrap kafka:9092
FROM eclipse-temurin:17-jdk AS build
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

FROM eclipse-temurin:17-jre
RUN useradd --system --uid 10001 --home-dir /data updraft && mkdir -p /data && chown updraft /data
COPY --from=build /src/launcher/target/updraft.jar /opt/updraft/updraft.jar
COPY --from=build /src/launcher/target/lib /opt/updraft/lib
USER updraft
WORKDIR /data
ENV UPDRAFT_DATA_DIR=/data
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-cp", "/opt/updraft/updraft.jar:/opt/updraft/lib/*", "dev.updraft.launcher.Updraft"]
CMD ["--help"]
