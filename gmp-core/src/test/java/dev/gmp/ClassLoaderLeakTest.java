package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;

/**
 * An application server's redeploy: gmp loaded by an application's own class loader, used, shut
 * down, and the loader dropped. Nothing may keep the loader: JFR's static lists held gmp's
 * listener (and, with JFR up, its periodic hook and event classes) for good, so every redeploy
 * leaked the loader and its Metaspace. GC-driven, with a generous bound; no timing claim.
 */
class ClassLoaderLeakTest {
  @Test
  void aLoaderThatRanAnExecutorIsCollectedOnceTheExecutorIsShutDown() throws Exception {
    assertCollected(deployRunAndUndeploy(false), "JFR down");
  }

  @Test
  void theSameWhileAJfrRecordingRuns() throws Exception {
    try (Recording r = new Recording()) {
      r.start(); // JFR up: the listener registers the event types and the periodic event too
      assertCollected(deployRunAndUndeploy(true), "JFR recording");
    }
  }

  private static void assertCollected(WeakReference<ClassLoader> ref, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ref.get() != null && System.nanoTime() < deadline) {
      System.gc();
      TestSupport.sleepQuietly(10);
    }
    assertNull(ref.get(), "the application's loader was collected (" + what + ")");
  }

  private static WeakReference<ClassLoader> deployRunAndUndeploy(boolean recording)
      throws Exception {
    URL classes = GmpExecutor.class.getProtectionDomain().getCodeSource().getLocation();
    URLClassLoader app = new URLClassLoader(new URL[] {classes},
        ClassLoader.getPlatformClassLoader());
    Class<?> gmp = app.loadClass(GmpExecutor.class.getName());
    assertTrue(gmp != GmpExecutor.class, "loaded again, by the application's loader");
    Method create = gmp.getMethod("create", int.class);
    ExecutorService ex = (ExecutorService) create.invoke(null, 2);
    java.util.concurrent.CountDownLatch ran = new java.util.concurrent.CountDownLatch(100);
    for (int i = 0; i < 100; i++) {
      ex.execute(ran::countDown);
    }
    TestSupport.await(ran, "the application's tasks run");
    ex.shutdown();
    assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    app.close();
    return new WeakReference<>(app);
  }
}
