package dev.gmp;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.concurrent.Executor;

/**
 * The one place gmp touches JDK internals: the adapter that lets JDK virtual threads run on gmp's
 * Ms as their carriers (docs/design.md, section 12). No JDK release (21 to 27) has a public API
 * for a virtual-thread scheduler; the day one lands, only this class changes.
 *
 * <p>What it reaches, all in {@code java.lang}, so all behind the one flag {@value #FLAG} (or
 * {@value #MODULE_FLAG} when gmp-core is the named module {@code dev.gmp} on the module path):
 *
 * <ul>
 *   <li>the package-private constructor {@code ThreadBuilders.VirtualThreadBuilder(Executor)},
 *       which the JDK's own tests use to give virtual threads a scheduler;
 *   <li>{@code Thread.currentCarrierThread()}: the platform thread a virtual thread is mounted
 *       on, so that {@link Carriers#execute} classifies its caller by carrier;
 *   <li>{@code VirtualThread.state} and its constants {@code STARTED}, {@code YIELDED}, {@code
 *       TERMINATED} (read by name, since their values differ between releases): whether a
 *       continuation handed to the scheduler is a start, a {@code Thread.yield} or another
 *       resumption, and whether its thread has finished;
 *   <li>the virtual thread behind a continuation: the JDK hands the scheduler its {@code
 *       runContinuation} Runnable, a bound method reference whose one captured field is the
 *       thread. Its shape is checked once, on a probe thread that is never started.
 * </ul>
 *
 * <p>Nothing is attempted until {@link #builder} is first called: everything else in gmp needs no
 * flag, and a missing flag costs an {@link UnsupportedOperationException} naming it, never a
 * warning (the access is checked, not forced: no {@code sun.misc.Unsafe}, nothing printed).
 * The same first call makes the JDK's socket pollers ({@code sun.nio.ch.Poller}) start from a
 * platform thread: their sub-poller virtual threads take the scheduler of the thread that first
 * initialises that class, and must never be carried by gmp.
 */
final class VirtualThreads {
  /** The flag for gmp-core on the class path (the unnamed module). */
  static final String FLAG = "--add-opens java.base/java.lang=ALL-UNNAMED";

  /** The flag for gmp-core on the module path (the named module dev.gmp). */
  static final String MODULE_FLAG = "--add-opens java.base/java.lang=dev.gmp";

  /** What a continuation handed to the scheduler means (see {@link #kind}). */
  static final int START = 0;

  static final int YIELD = 1;
  static final int RESUME = 2;

  /**
   * Set once {@link Access} has initialised successfully. Volatile: {@link
   * #currentCarrierIfReady} reads it on paths that must never trigger the reflective attempt.
   */
  private static volatile boolean ready;

  private VirtualThreads() {}

  /**
   * A new builder of virtual threads whose scheduler is {@code scheduler}.
   *
   * @throws UnsupportedOperationException naming the flag, if java.lang is not open to gmp, or
   *     naming the cause if this JDK's internals are not what gmp expects
   */
  static Thread.Builder.OfVirtual builder(Executor scheduler) {
    Access.check();
    try {
      return (Thread.Builder.OfVirtual) Access.NEW_BUILDER.invokeExact(scheduler);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new UnsupportedOperationException("could not create a virtual-thread builder", e);
    }
  }

  /** The calling thread's carrier (itself if it is a platform thread). Only after builder(). */
  static Thread currentCarrier() {
    try {
      return (Thread) Access.CURRENT_CARRIER.invokeExact();
    } catch (Throwable e) {
      throw new IllegalStateException(e); // a static native getter: cannot happen
    }
  }

  /** {@link #currentCarrier()} once a builder was made, else null; never attempts the access. */
  static Thread currentCarrierIfReady() {
    return ready ? currentCarrier() : null;
  }

  /** The virtual thread whose continuation {@code task} is, or null if it is something else. */
  static Thread threadOf(Runnable task) {
    if (task.getClass() != Access.CONTINUATION_CLASS) {
      return null;
    }
    try {
      return (Thread) Access.THREAD_OF.invokeExact(task);
    } catch (RuntimeException | Error e) {
      throw e; // a StackOverflowError: Carriers#execute settles it
    } catch (Throwable e) {
      throw new IllegalStateException(e); // a field getter: cannot happen
    }
  }

  /**
   * Why {@code vt}'s continuation is being handed to the scheduler, read from its state when
   * execute is called: {@link #START} (Thread.start), {@link #YIELD} (Thread.yield, Go's
   * Gosched: the JDK sets YIELDED just before it submits) or {@link #RESUME} (unpark, unblock,
   * notify, a timeout; and every self-resubmission on a JDK without a YIELDED state).
   */
  static int kind(Thread vt) {
    int st = state(vt);
    if (st == Access.STARTED) {
      return START;
    }
    return st == Access.YIELDED ? YIELD : RESUME;
  }

  /** Whether {@code vt} has terminated (its last continuation run has returned). */
  static boolean isTerminated(Thread vt) {
    return state(vt) == Access.TERMINATED;
  }

  private static int state(Thread vt) {
    try {
      return (int) Access.STATE.invokeExact(vt); // volatile read (the field is volatile)
    } catch (RuntimeException | Error e) {
      throw e; // a StackOverflowError: Carriers#execute settles it
    } catch (Throwable e) {
      throw new IllegalStateException(e); // a field getter: cannot happen
    }
  }

  /** The message of the UnsupportedOperationException for a missing flag. */
  static String flagMessage() {
    String where = VirtualThreads.class.getModule().isNamed()
        ? "gmp-core is the named module dev.gmp here, so add " + MODULE_FLAG + " ("
            + FLAG + " opens java.lang to the class path only)"
        : "add " + FLAG + " (or " + MODULE_FLAG + " when gmp-core is on the module path; an"
            + " executable jar may say Add-Opens: java.base/java.lang in its manifest)";
    return "GmpExecutor's virtual threads need java.lang opened to gmp: " + where
        + ". The JDK has no public API for a virtual-thread scheduler yet, so gmp uses the"
        + " JDK-internal ThreadBuilders.VirtualThreadBuilder(Executor). Nothing else in gmp needs"
        + " the flag.";
  }

  /** Makes the JDK start its socket pollers now, from a platform thread (see the class doc). */
  private static void startPollersOnPlatformThread() {
    Runnable load = () -> {
      try {
        Class.forName("sun.nio.ch.Poller", true, null); // initialises it: starts the pollers
      } catch (Throwable ignored) {
        // No such class, or it failed: the JDK reports that at its first socket operation.
      }
    };
    if (!Thread.currentThread().isVirtual()) {
      load.run();
      return;
    }
    // Here the question is exactly the JDK's (a new virtual thread inherits the scheduler of a
    // virtual parent), so isVirtual() is the right test, not a classification of a caller.
    Thread t = Thread.ofPlatform().daemon().name("gmp-poller-start").start(load);
    boolean interrupted = false;
    while (t.isAlive()) {
      try {
        t.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The handles, made on first use; FAILURE says why they are null. */
  private static final class Access {
    static final MethodHandle NEW_BUILDER; // (Executor) OfVirtual
    static final MethodHandle CURRENT_CARRIER; // () Thread
    static final MethodHandle THREAD_OF; // (Runnable) Thread
    static final MethodHandle STATE; // (Thread) int, a volatile read
    static final Class<?> CONTINUATION_CLASS;
    static final int STARTED;
    static final int YIELDED; // -1 on a JDK without the state (21): yields resume as RESUME
    static final int TERMINATED;
    static final Throwable FAILURE;

    static {
      MethodHandle nb = null;
      MethodHandle cc = null;
      MethodHandle to = null;
      MethodHandle st = null;
      Class<?> cls = null;
      int started = 0;
      int yielded = -1;
      int terminated = 0;
      Throwable failure = null;
      try {
        MethodHandles.Lookup me = MethodHandles.lookup();
        Class<?> vtc = Class.forName("java.lang.VirtualThread");
        Class<?> vtb = Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder");
        // Each privateLookupIn throws IllegalAccessException unless java.lang is open to us.
        MethodHandles.Lookup inVt = MethodHandles.privateLookupIn(vtc, me);
        nb = MethodHandles.privateLookupIn(vtb, me)
            .findConstructor(vtb, MethodType.methodType(void.class, Executor.class))
            .asType(MethodType.methodType(Thread.Builder.OfVirtual.class, Executor.class));
        cc = MethodHandles.privateLookupIn(Thread.class, me)
            .findStatic(Thread.class, "currentCarrierThread", MethodType.methodType(Thread.class));
        st = inVt.findVarHandle(vtc, "state", int.class)
            .toMethodHandle(VarHandle.AccessMode.GET_VOLATILE)
            .asType(MethodType.methodType(int.class, Thread.class));
        started = constant(inVt, vtc, "STARTED");
        terminated = constant(inVt, vtc, "TERMINATED");
        try {
          yielded = constant(inVt, vtc, "YIELDED");
        } catch (NoSuchFieldException absent) {
          yielded = -1; // JDK 21: a yield resubmits in the same state as a raced park
        }
        // The probe: a thread that is never started, to learn its continuation's shape.
        Thread probe = ((Thread.Builder.OfVirtual) nb.invokeExact((Executor) r -> {}))
            .unstarted(() -> {});
        Runnable cont = (Runnable) inVt.findVarHandle(vtc, "runContinuation", Runnable.class)
            .get(probe);
        cls = cont.getClass();
        Field only = null;
        for (Field f : cls.getDeclaredFields()) {
          if (!Modifier.isStatic(f.getModifiers()) && f.getType() == vtc) {
            if (only != null) {
              throw new IllegalStateException("two thread fields in " + cls);
            }
            only = f;
          }
        }
        if (only == null) {
          throw new IllegalStateException("no thread field in " + cls);
        }
        only.setAccessible(true); // a field of a class of java.lang: open to us, checked above
        to = me.unreflectGetter(only)
            .asType(MethodType.methodType(Thread.class, Runnable.class));
        if ((Thread) to.invokeExact(cont) != probe) {
          throw new IllegalStateException("the continuation of " + cls + " is not its thread's");
        }
      } catch (Throwable e) {
        failure = e;
        nb = null;
        cc = null;
        to = null;
        st = null;
        cls = null;
      }
      NEW_BUILDER = nb;
      CURRENT_CARRIER = cc;
      THREAD_OF = to;
      STATE = st;
      CONTINUATION_CLASS = cls;
      STARTED = started;
      YIELDED = yielded;
      TERMINATED = terminated;
      FAILURE = failure;
      if (failure == null) {
        startPollersOnPlatformThread(); // before any virtual thread of gmp can exist
        ready = true; // volatile write: after every handle above is set
      }
    }

    private static int constant(MethodHandles.Lookup l, Class<?> c, String name)
        throws ReflectiveOperationException {
      return (int) l.findStaticVarHandle(c, name, int.class).get();
    }

    static void check() {
      Throwable f = FAILURE;
      if (f == null) {
        return;
      }
      if (f instanceof IllegalAccessException || f instanceof SecurityException
          || f.getClass().getName().equals("java.lang.reflect.InaccessibleObjectException")) {
        throw new UnsupportedOperationException(flagMessage(), f);
      }
      if (f instanceof UnsupportedOperationException) { // the JVM has no continuations
        throw new UnsupportedOperationException(
            "this JVM does not support virtual threads: " + f.getMessage(), f);
      }
      throw new UnsupportedOperationException("this JDK's virtual-thread internals are not what"
          + " gmp expects (" + Runtime.version() + "): " + f + ". " + flagMessage(), f);
    }
  }
}
