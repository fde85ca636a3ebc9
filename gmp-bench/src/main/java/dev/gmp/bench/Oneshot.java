package dev.gmp.bench;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Tokio's oneshot channel, for tasks written as continuations: {@link #await} either finds the
 * value already sent and continues inline (an async {@code .await} that is ready at once), or
 * leaves its continuation behind; {@link #send} then wakes it by handing the continuation to the
 * executor, from the sender's thread (a waker: on gmp and ForkJoinPool a wake from inside a task
 * is a local submission).
 */
final class Oneshot {
  private static final Object SENT = new Object();
  private final AtomicReference<Object> state = new AtomicReference<>();

  void send(Executor executor) {
    Object prev = state.getAndSet(SENT);
    if (prev instanceof Runnable waiter) {
      executor.execute(waiter);
    } else if (prev == SENT) {
      throw new IllegalStateException("oneshot sent twice");
    }
  }

  void await(Runnable continuation) {
    if (!state.compareAndSet(null, continuation)) {
      continuation.run(); // already sent: ready, no suspension
    }
  }
}
