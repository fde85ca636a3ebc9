package dev.gmp;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Run by FreshExecutorTest in a fresh JVM with class loading logged: builds an executor, then runs
 * its first tasks (one from outside, 100 spawned by a task, 100 more from outside). The loads of
 * the two marker classes bracket the tasks in the log.
 */
public final class FreshExecutorMain {
  private FreshExecutorMain() {}

  /** Loaded when the executor is built, before its first task. */
  static final class Built {}

  /** Loaded when the tasks have run. */
  static final class Ran {}

  public static void main(String[] args) throws Exception {
    GmpExecutor ex = GmpExecutor.builder().name("fresh").parallelism(2).build();
    new Built();
    CountDownLatch first = new CountDownLatch(1);
    ex.execute(first::countDown);
    await(first);
    CountDownLatch spawned = new CountDownLatch(100);
    ex.execute(() -> {
      for (int i = 0; i < 100; i++) {
        ex.execute(spawned::countDown);
      }
    });
    await(spawned);
    CountDownLatch outside = new CountDownLatch(100);
    for (int i = 0; i < 100; i++) {
      ex.execute(outside::countDown);
    }
    await(outside);
    new Ran();
    ex.shutdown();
    System.out.println("terminated " + ex.awaitTermination(60, TimeUnit.SECONDS));
  }

  private static void await(CountDownLatch l) throws InterruptedException {
    if (!l.await(60, TimeUnit.SECONDS)) {
      throw new AssertionError("tasks did not run within 60 s");
    }
  }
}
