package dev.updraft.ingester;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A batch write in flight: the batch and its transaction's future (the device rows written). Immutable; read on the
 * loop's consumer thread.
 */
record Flight(Batch batch, CompletableFuture<Integer> result) {

  /** How a write ended: {@code rows} when it committed, else {@code err}. */
  record End(Integer rows, Throwable err) {}

  /**
   * The end of the write.
   *
   * @param block wait for it, up to {@code timeoutMs} (then it ends with a {@link TimeoutException}: the transaction may
   *     still commit later, which the offset condition makes safe); otherwise null while it is running
   */
  End end(boolean block, long timeoutMs) {
    if (block) {
      try {
        return new End(result.get(timeoutMs, TimeUnit.MILLISECONDS), null);
      } catch (ExecutionException e) {
        return new End(null, e.getCause());
      } catch (TimeoutException e) {
        return new End(null, new TimeoutException(
            "batch write not finished after " + timeoutMs + " ms: ranges=" + BatchWriter.describe(batch)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new End(null, e);
      }
    }
    if (!result.isDone()) {
      return null;
    }
    try {
      return new End(result.getNow(null), null);
    } catch (CompletionException e) {
      return new End(null, e.getCause());
    } catch (CancellationException e) {
      return new End(null, e);
    }
  }
}
