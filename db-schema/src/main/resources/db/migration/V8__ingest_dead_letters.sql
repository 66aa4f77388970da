-- Records that decoded as check-ins but that PostgreSQL refused to store, every time: the ingester retried the
-- batch holding one --ingest-max-attempts times with the same data error (SQLSTATE class 22, 23 or 54: a value
-- out of range, a constraint, an index row too large), then wrote the batch's records in halves until the one
-- refused alone was found, and set it aside here, in the transaction that moves its partition's offset past it.
-- The rest of the batch is stored as usual; the partition reads on. Kept for an operator to look at, replay
-- (record_value is the record exactly as it was in the topic) and delete: docs/operations.md.
CREATE TABLE ingest_dead_letters (
  topic            text COLLATE "C" NOT NULL,
  kafka_partition  integer     NOT NULL,
  record_offset    bigint      NOT NULL,
  record_key       bytea,
  record_value     bytea,
  record_timestamp timestamptz,
  sql_state        text,
  error            text        NOT NULL,
  attempts         integer     NOT NULL,
  dead_lettered_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (topic, kafka_partition, record_offset)
);
