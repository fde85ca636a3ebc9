package dev.gmp.bench;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * An actor as the actor libraries build them on an executor: a mailbox (JCTools' MPSC queue, the
 * field-updater variant that needs no Unsafe) plus a "scheduled" flag. {@link #send} enqueues and
 * submits the actor if it was not scheduled; {@link #run} drains up to {@link #THROUGHPUT}
 * messages, clears the flag, and re-submits itself if mail arrived meanwhile. At most one thread
 * runs an actor at a time, and every message is processed exactly once.
 */
abstract class Actor<M> implements Runnable {
  /** Messages handled per turn before the actor yields its worker (Akka's "throughput"). */
  static final int THROUGHPUT = 64;

  private static final AtomicIntegerFieldUpdater<Actor> SCHEDULED =
      AtomicIntegerFieldUpdater.newUpdater(Actor.class, "scheduled");

  private final MpscUnboundedAtomicArrayQueue<M> mailbox = new MpscUnboundedAtomicArrayQueue<>(64);
  private final Executor executor;
  private volatile int scheduled;

  Actor(Executor executor) {
    this.executor = executor;
  }

  final void send(M message) {
    mailbox.offer(message);
    if (scheduled == 0 && SCHEDULED.compareAndSet(this, 0, 1)) {
      executor.execute(this);
    }
  }

  /** Handles one message; runs on one thread at a time. */
  protected abstract void receive(M message);

  @Override
  public final void run() {
    for (int n = 0; n < THROUGHPUT; n++) {
      M m = mailbox.poll();
      if (m == null) {
        break;
      }
      receive(m);
    }
    scheduled = 0; // volatile store, then the volatile read in isEmpty(): Dekker with send()
    if (!mailbox.isEmpty() && SCHEDULED.compareAndSet(this, 0, 1)) {
      executor.execute(this);
    }
  }
}
