package dev.gmp;

/**
 * Which M the calling thread is (Go's {@code getg().m}). Java has no g register: a thread from
 * the default factory is an {@link MThread} that names its M (ForkJoinWorkerThread's way), and
 * every running M of every executor, whatever its factory, is in a table by thread. M.run
 * registers its thread before scheduling anything and Threads#mexit unregisters it.
 */
final class ThreadTable {
  private ThreadTable() {}

  private static final Object TABLE_LOCK = new Object();

  /**
   * Every running M of every executor by thread, an open-addressed table indexed by thread id
   * (copy-on-write, so readers need no lock): execute() asks "is the caller one of our workers" on
   * every spawn, where a ThreadLocal probe is dearer than a few plain loads (docs/design.md,
   * section 5). current(), blocking() and execute() all read it.
   */
  private static volatile M[] byThread = new M[8];

  /**
   * An M's thread made by the default factory. It names its M while the M is registered, so
   * execute() finds "its" M with a type check and a load instead of the table's probe (a tenth of
   * a spawn's cost: docs/benchmarks.md, "The calling thread's M"). Threads from a user's factory
   * go through the table.
   */
  static final class MThread extends Thread {
    /** Written and read only by this thread: register and unregister run on it. */
    M m;

    MThread(String name, Runnable r) {
      super(null, r, name, 0, false);
    }
  }

  /**
   * The M running on the calling thread, of any executor, or null; null for a virtual thread
   * even on our carrier: it may unmount in the middle of blocking() or execute() (carrierM).
   */
  static M currentM() {
    Thread t = Thread.currentThread();
    return t instanceof MThread mt ? mt.m : lookup(t);
  }

  /**
   * The M whose thread carries the caller (a virtual thread mounted on it, or the M itself), or
   * null; null before any virtual-thread builder was made (the JDK-internal lookup is never
   * attempted before). For Carriers#execute, whose caller the JDK pins, and current().
   */
  static M carrierM() {
    Thread c = VirtualThreads.currentCarrierIfReady();
    return c == null ? null : lookup(c);
  }

  /** current()'s question: our M, or the M carrying the calling virtual thread. */
  static M currentOrCarrierM() {
    Thread t = Thread.currentThread();
    M m = lookup(t);
    return m != null || !t.isVirtual() ? m : carrierM(); // isVirtual: skip a useless lookup
  }

  private static M lookup(Thread t) {
    M[] tab = byThread; // volatile read: sees a table whose Ms have their runner set
    int mask = tab.length - 1;
    for (int i = (int) t.threadId() & mask; ; i = (i + 1) & mask) {
      M m = tab[i];
      if (m == null || m.runner == t) {
        return m; // the table is at most half full, so an empty slot ends every probe
      }
    }
  }

  /** M.run registers its thread (the calling thread) before scheduling anything. */
  static void register(M m) {
    synchronized (TABLE_LOCK) {
      rebuild(m, null);
    }
    if (m.runner instanceof MThread mt) {
      mt.m = m; // after the table: both answers agree from here on
    }
  }

  /** Threads#mexit, on the M's own thread. */
  static void unregister(M m) {
    if (m.runner instanceof MThread mt) {
      mt.m = null; // first: a retry after an OutOfMemoryError below finds it already cleared
    }
    synchronized (TABLE_LOCK) {
      rebuild(null, m);
    }
  }

  private static void rebuild(M add, M remove) {
    M[] old = byThread;
    int live = add != null ? 1 : 0;
    for (M x : old) {
      if (x != null && x != remove) {
        live++;
      }
    }
    int size = 8;
    while (size < 2 * live) {
      size <<= 1;
    }
    M[] tab = new M[size];
    for (M x : old) {
      if (x != null && x != remove) {
        insert(tab, x);
      }
    }
    if (add != null) {
      insert(tab, add);
    }
    byThread = tab; // volatile write: publishes the filled table
  }

  private static void insert(M[] tab, M m) {
    int mask = tab.length - 1;
    int i = (int) m.runner.threadId() & mask;
    while (tab[i] != null) {
      i = (i + 1) & mask;
    }
    tab[i] = m;
  }
}
