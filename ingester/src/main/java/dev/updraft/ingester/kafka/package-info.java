/**
 * What the ingester's two Kafka loops (telemetry, {@code dev.updraft.ingester}, and the history projection,
 * {@code dev.updraft.ingester.history}) share: the consumer settings ({@link
 * dev.updraft.ingester.kafka.ReadCommittedConsumer}) and the lag gauge counted from the offsets each loop stores
 * in PostgreSQL ({@link dev.updraft.ingester.kafka.LagGauge}).
 */
package dev.updraft.ingester.kafka;
