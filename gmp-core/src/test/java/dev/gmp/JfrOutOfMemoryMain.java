package dev.gmp;

import java.util.ArrayList;
import java.util.List;
import jdk.jfr.Recording;

/**
 * Run by JfrOutOfMemoryTest in a JVM with a small heap (Serial GC) and a JFR recording of every
 * gmp event: with the heap full to the last bytes, each of Jfr's emitters is called and must not
 * throw (it drops its event), since each is called inside a scheduler step that an Error would
 * leave half done. Prints "ok", or the emitters that threw (their index); "not full" if the heap
 * could not be filled (then nothing was checked).
 */
public final class JfrOutOfMemoryMain {
  private JfrOutOfMemoryMain() {}

  private static final List<Object> HOG = new ArrayList<>(1 << 16);

  public static void main(String[] args) throws Exception {
    GmpExecutor ex = GmpExecutor.create(1); // its JFR listener sets Jfr.on while a recording runs
    Scheduler s = ex.sched;
    M m = new M(s, 1);
    try (Recording rec = new Recording()) {
      for (Class<? extends jdk.jfr.Event> c : JfrRecorder.types()) {
        rec.enable(c);
      }
      rec.start();
      while (!Jfr.on) {
        Thread.onSpinWait();
      }
      Runnable[] emitters = {
        () -> Jfr.steal(s, 0, 1, 3),
        () -> Jfr.handoff(s, 0, true, 0),
        () -> Jfr.retake(s, 0, "syscall", 1, 0),
        () -> Jfr.procState(s, 0, P.Pidle, m),
        () -> Jfr.unpark(s, m),
        () -> Jfr.runnextDemotion(s, 0, 1),
        () -> Jfr.parkEnd(Jfr.parkBegin(s, m)),
      };
      for (Runnable emit : emitters) {
        emit.run(); // every class loaded and call site linked while there is room
      }
      boolean full = true;
      boolean[] threw = new boolean[emitters.length]; // noted without allocating
      for (int i = 0; i < emitters.length; i++) {
        full &= fill();
        try {
          emitters[i].run();
        } catch (Throwable e) {
          threw[i] = true;
        }
        HOG.clear();
      }
      ex.shutdown();
      List<Integer> which = new ArrayList<>();
      for (int i = 0; i < threw.length; i++) {
        if (threw[i]) {
          which.add(i);
        }
      }
      System.out.println(!full ? "not full" : which.isEmpty() ? "ok" : "emitters threw: " + which);
    }
  }

  /** Fills the heap down to its last bytes; false if no allocation ever failed. */
  private static boolean fill() {
    return fill(HOG);
  }

  /** Fills the heap down to its last bytes into {@code hog}; false if no allocation failed. */
  static boolean fill(List<Object> hog) {
    boolean failed = false;
    for (int chunk : new int[] {1 << 20, 1 << 16, 1 << 12, 1 << 8, 64, 16}) {
      try {
        for (; ; ) {
          hog.add(new byte[chunk]);
        }
      } catch (OutOfMemoryError full) {
        failed = true;
      }
    }
    return failed;
  }
}
