package dev.updraft.edge;

import dev.updraft.edge.image.Decision;
import dev.updraft.events.CheckIn;

/**
 * The check-in a device request leaves: what the device said ({@link DeviceRequest}), what the edge decided
 * ({@link Decision}, absent when the request was refused before a decision) and what it sent. The one place the
 * edge fills a {@link CheckIn}: a new check-in field is set here.
 */
final class DeviceCheckIn {
  private DeviceCheckIn() {}

  /**
   * @param d the decision, or {@code null} when refused before one
   * @param served whether {@code d}'s entry was actually sent
   * @param edgeId this edge's id
   */
  static CheckIn of(DeviceRequest r, String outcome, String reason, Decision d, boolean served, String edgeId) {
    return CheckIn.builder()
        .checkInId(CheckInIds.next())
        .appId(r.appId)
        .platform(r.platformRaw == null ? "" : r.platformRaw)
        .runtimeVersion(r.runtimeVersion)
        .channel(r.channel)
        .clientId(r.clientId)
        .currentUpdateId(r.currentId)
        .embeddedUpdateId(r.embeddedId)
        .failedUpdateIds(r.failedIds)
        .skippedUpdateIds(d == null ? null : d.skippedUpdateIds())
        .outcome(outcome)
        .reason(reason)
        .branch(d == null ? null : d.branch())
        .inBranchRollout(d != null && d.inBranchRollout())
        .rolloutBucket(d == null || d.rolloutBucket() < 0 ? null : d.rolloutBucket())
        .servedUpdateId(served ? d.servedUpdateId() : null)
        .servedGroupId(served ? d.servedGroupId() : null)
        .fatalError(r.fatalError)
        .atEpochMillis(System.currentTimeMillis())
        .edgeId(edgeId)
        .keyId(r.ringKeyId)
        .addressBucket(r.addressBucket)
        .build();
  }
}
