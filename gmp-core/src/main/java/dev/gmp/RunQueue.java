package dev.gmp;

import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * A P's local run queue: Go's 256-slot lock-free ring ({@code runq}, {@code runqhead},
 * {@code runqtail}) plus the {@code runnext} slot.
 *
 * <p>Single producer (the owning M pushes at the tail), multiple consumers (the owner and thieves
 * advance the head by CAS). Indices are free-running ints: {@code tail - head} is the length even
 * across overflow, exactly as Go's uint32 arithmetic. One deviation: the owner may also pop the
 * newest G from the tail ({@link #popNewest}), where Go's owner always takes the head.
 *
 * <p>Memory ordering, in one place:
 *
 * <ul>
 *   <li>slots are plain: the owner writes a slot and then release-stores tail; a consumer
 *       acquire-loads tail before reading slots, so it sees the G. A consumer may read a slot the
 *       owner is overwriting, but only after the head moved past it, and then its CAS on head
 *       fails and the value is discarded.
 *   <li>head: consumers acquire-load it and advance it by CAS; the CAS releases the slot reads,
 *       and the owner acquire-loads head before reusing a slot, so it never overwrites a slot
 *       someone is still reading.
 *   <li>tail: only the owner writes it (release store) and reads it (plain); popNewest lowers it
 *       with a volatile store before reading head (its doc says why that is enough).
 *   <li>runnext: a volatile swap (owner put) or CAS (takes, thieves) of a sequence number; the
 *       G sits in one of two slots, the put's number's parity choosing it. The owner writes the
 *       slot (plain) before the swap publishes the number; a taker reads the number, then the
 *       slot, then CASes the number to 0, so a slot the owner reused meanwhile (two puts later)
 *       comes with a failed CAS. Being a full (sequentially consistent) operation, the owner's
 *       swap also serves as the StoreLoad barrier between "work published" and "read nmspinning"
 *       in wakep (seed 000, 9.3.5).
 *   <li>Taken slots are nulled, by the owner only (the only thread that writes slots), after the
 *       CAS that took them: a consumer that reads the null read it after that CAS, so its own CAS
 *       fails. A submitted future is its own G and holds its result, so a slot left holding a
 *       taken G kept the result of a finished, dropped future: up to 258 per P. Slots other
 *       consumers took are nulled at the owner's next take from the ring or when it finds the
 *       queue empty ({@link #pollRing}, {@link #popNewest}); runnext's at the owner's next put.
 * </ul>
 *
 * <p>Layout: the ring and runnext's slots are one array, a {@link CardIsland} for a P's queue
 * (live slots at {@code base}), so the Gs stored per task mark cards no other P's stores mark.
 */
final class RunQueue extends RunQueuePad3 {
  static final int SIZE = 256;
  private static final int MASK = SIZE - 1;

  // Field updaters, not VarHandles, and volatile fields read directly: why, and how an ordering
  // comment below reads, in docs/design.md section 2 ("How the orderings are spelled").
  private static final AtomicIntegerFieldUpdater<RunQueueHead> HEAD =
      AtomicIntegerFieldUpdater.newUpdater(RunQueueHead.class, "head");
  private static final AtomicIntegerFieldUpdater<RunQueueTail> TAIL =
      AtomicIntegerFieldUpdater.newUpdater(RunQueueTail.class, "tail");
  private static final AtomicLongFieldUpdater<RunQueueNext> RUNNEXT =
      AtomicLongFieldUpdater.newUpdater(RunQueueNext.class, "runnext");

  /** runnext's two slots, 16 slots (64 bytes) past the ring's end. */
  private static final int NEXT = SIZE + 16;

  /** Live slots: the ring, the gap, runnext's two. */
  static final int LIVE = NEXT + 2;

  /**
   * The ring at {@code slots[base + (i & MASK)]}, runnext's G at {@code slots[base + NEXT +
   * (seq & 1)]}. Spelled out at each access rather than in helpers: the interpreter pays a call
   * per helper, and a fresh JVM's first tasks run interpreted.
   */
  private final G[] slots;

  private final int base;

  /** Owner-only: the last sequence number put in runnext (0: none yet). */
  private long nextSeq;

  /** Owner-only: Gs written by putOwned and not yet published. */
  private int pending;

  /**
   * A queue in {@code island} ({@link CardIsland#allocate} of {@link #LIVE} slots): a P's. The
   * island may be a drained zombie's (Retake): its stale slots are never read, since this queue's
   * indices and runnext start empty.
   */
  RunQueue(G[] island) {
    if (!isIsland(island)) {
      throw new IllegalArgumentException("not a run queue's island: " + island.length + " slots");
    }
    slots = island;
    base = CardIsland.PAD;
  }

  /** A compact queue, no island: tests and stress tests, which make thousands. */
  RunQueue() {
    slots = new G[LIVE];
    base = 0;
  }

  /** Test seam: a compact queue whose free-running indices start anywhere (near overflow, say). */
  RunQueue(int start) {
    this();
    head = start;
    tail = start;
    lookHead = start;
    lookHigh = start;
    spawnedFrom = start;
    cleared = start;
    globalEnd = start;
  }

  /** Whether {@code slots} is a run queue's island ({@link CardIsland#allocate} of LIVE). */
  static boolean isIsland(G[] slots) {
    return slots.length == CardIsland.PAD + LIVE + CardIsland.PAD;
  }

  /** The island this queue lives in (Retake recycles a drained zombie's). */
  G[] island() {
    return slots;
  }

  // ---------------------------------------------------------------- owner side

  /**
   * A spawn's put: into runnext unless the ablation switch is off, then a full fence for wakep's
   * read (Dekker A) where there is no swap to give it. Small enough for C1 to inline into
   * execute (Scheduler#submit). Returns as {@link #put}.
   */
  boolean putNext(G g, GlobalQueue global) {
    if (Switches.RUNNEXT) {
      return put(g, true, global);
    }
    put(g, false, global); // to the ring or global: stealable
    VarHandle.fullFence(); // put's release store, then wakep's read of nmspinning
    return true;
  }

  /**
   * runqput: with {@code next}, {@code g} takes runnext and the G it displaces goes to the tail.
   * A full ring moves its front half plus the G being added to {@code global} in one locked batch
   * (runqputslow). Returns false when {@code g} took an empty runnext (nothing was added that a
   * thief would take before the owner), true when a G went to the ring or the global queue.
   */
  boolean put(G g, boolean next, GlobalQueue global) {
    if (tail - head >= SIZE) { // plain tail (ours), acquire head: not full now, not full at our put
      // The overflow takes the lock with Gs claimed: a caller deep in a recursion gets its
      // StackOverflowError here, before anything moved (StackGuard), not with a G in hand.
      StackGuard.ensure();
    }
    if (next) {
      long seq = nextSeq + 1; // plain: owner only
      slots[base + NEXT + (int) (seq & 1)] = g; // plain: published by the swap below
      long old;
      if (Mutations.PLAIN_RUNNEXT) {
        old = runnext;
        RUNNEXT.lazySet(this, seq);
      } else {
        // Atomic swap: a thief's CAS either took old before us (we get 0 back) or fails after;
        // full barrier, so wakep's read of nmspinning comes after it (class doc).
        old = RUNNEXT.getAndSet(this, seq);
      }
      // Counted only once published: a StackOverflowError at the swap's call (a spawn near the
      // end of a deep stack) left it counted, and the next put then wrote over runnext's G.
      nextSeq = seq;
      int other = base + NEXT + (int) (~seq & 1);
      if (old == 0) {
        slots[other] = null; // taken by a CAS on seq - 1 before the swap (class doc)
        return false;
      }
      // old is seq - 1 (every put publishes, takes only clear): the other slot, which we have
      // not written since, and the G in it is ours now that no CAS on old can succeed.
      g = slots[other];
      slots[other] = null; // the G moves to the ring; no CAS on old can succeed (class doc)
    }
    for (; ; ) {
      // Acquire: consumers released the slots they read when they moved head.
      int h = head;
      int t = tail; // plain: only this thread writes tail
      if (t - h < SIZE) {
        slots[Mutations.SIGNED_SLOT ? base + Math.abs(t % SIZE) : base + (t & MASK)] = g;
        try {
          // Release: a consumer that acquire-loads tail sees the slot written above.
          TAIL.lazySet(this, t + 1);
        } catch (StackOverflowError e) {
          // At the call's entry, near the end of a deep stack: g (runnext's displaced G, once
          // the swap above is done) would be lost. A field store needs no frame.
          tail = t + 1; // volatile store: publishes the slot, as the release store would
          throw e;
        }
        return true;
      }
      if (putSlow(g, h, t, global)) {
        return true;
      }
      // The CAS in putSlow lost to a consumer, so the ring is no longer full: retry.
    }
  }

  /** runqputslow: move the front half (or one, under the ablation switch) and g to global. */
  private boolean putSlow(G g, int h, int t, GlobalQueue global) {
    int n = Switches.BATCH_OVERFLOW ? (t - h) / 2 : 1;
    moves = moves + 1; // startMove, inline (its doc): an error below must still end the move
    try {
      // CAS: claims the n slots against thieves; from here only this thread reads them, and only
      // this thread ever writes a slot, so they are read after it, straight into the global array.
      if (Mutations.PUTSLOW_NO_CAS) {
        HEAD.lazySet(this, h + n);
      } else if (!HEAD.compareAndSet(this, h, h + n)) {
        return false;
      }
      if (Mutations.PUTSLOW_NO_LOCK) {
        global.putAll(slots, base, h, MASK, n, g);
      } else {
        global.lock.lock();
        try {
          global.putAll(slots, base, h, MASK, n, g);
        } finally {
          global.lock.unlock();
        }
      }
    } finally {
      moves = moves + 1; // endMove, inline: a field store needs no frame
    }
    clearTaken(h + n, t); // the owner's take (class doc); after the copy, which reads them
    return true;
  }

  /**
   * Owner only: Gs are about to leave a queue for another (a steal into this ring, an overflow
   * from it) and will be in none for a moment. The claiming CAS that follows is ordered after this
   * store, so shutdownNow, which sees the claim when it drains the source, sees the odd count.
   * Field stores, not calls (here and at a move's end): an overflow runs near the end of a deep
   * caller's stack, and a count left odd would hold shutdownNow for good.
   */
  private void startMove() {
    moves = moves + 1; // volatile store, owner only
  }

  /** Owner only: the moved Gs are in their new queue (their publication came first). */
  private void endMove() {
    moves = moves + 1; // volatile store, owner only: after the Gs' release store or unlock
  }

  /**
   * shutdownNow's view of this ring's moves: odd while one is under way; a change between two
   * reads means one ran in between (Lifecycle#shutdownNow drains again).
   */
  int moves() {
    return moves; // volatile read: the owner's volatile stores
  }

  /**
   * Owner side of a batch push (globrunqgetbatch, a retaken P's work moving to its replacement):
   * writes {@code g} behind the published tail; {@link #publishOwned} makes the batch visible.
   * The caller made sure it fits ({@link #room()}, or an empty ring nobody else owns yet).
   */
  void putOwned(G g) {
    // Plain: published by publishOwned's release store.
    slots[base + ((tail + pending++) & MASK)] = g;
  }

  /**
   * runqputbatch from the global queue's array: {@code n} Gs starting at {@code src[from]}
   * (circular, {@code srcMask}), owner side; the caller made sure they fit ({@link #room()}).
   */
  void putBatch(G[] src, int from, int srcMask, int n) {
    int t = tail; // plain: owner only
    for (int i = 0; i < n; i++) {
      slots[base + ((t + i) & MASK)] = src[(from + i) & srcMask];
    }
    TAIL.lazySet(this, t + n); // release: publishes the n slots
    spawnedFrom = t + n;
    globalEnd = t + n;
  }

  /**
   * Owner side: the Gs in the ring now keep Go's order ({@link #popNewest} takes them oldest
   * first), as a batch's do: timers that fired together run in deadline order.
   */
  void keepOrder() {
    spawnedFrom = tail; // plain: owner only
  }

  /** Publishes the Gs written by {@link #putOwned} since the last call. */
  void publishOwned() {
    if (pending > 0) {
      TAIL.lazySet(this, tail + pending); // release: a consumer that sees tail sees the slots
      spawnedFrom = tail;
      globalEnd = tail;
      pending = 0;
    }
  }

  /**
   * Moves this ring's Gs (as a consumer) onto {@code to}, which nobody else owns yet, runnext
   * staying runnext: a retaken P's work going to its replacement. At most a ring's worth: the
   * retaken task may still push here (a spawn that saw the P alive) into the room this move frees,
   * and a 257th G would overwrite the first one's slot in {@code to}. What stays behind is a
   * zombie's late push, which its owner or sysmon moves to the global queue (Retake#sweepZombies).
   */
  void moveTo(RunQueue to) {
    for (int moved = 0; moved < SIZE || Mutations.MOVE_TO_UNBOUNDED; moved++) {
      G g = pollRingAsConsumer();
      if (g == null) {
        break;
      }
      to.putOwned(g);
    }
    to.publishOwned();
    G next = takeRunnext();
    if (next != null) {
      long seq = ++to.nextSeq; // to's owner-only fields: nobody owns to yet
      to.slots[to.base + NEXT + (int) (seq & 1)] = next;
      RUNNEXT.lazySet(to, seq); // release: to is published to others by the lock that follows
    }
  }

  /**
   * Owner: whether the ring's head G came in the last batch from the global queue (or a retaken
   * P's move): then it is older than anything still there, and the fairness tick takes it rather
   * than the global queue's head, so one submitter's tasks start in the order submitted (Go's
   * tick takes the global head and puts it before the batch).
   */
  boolean headFromGlobal() {
    int h = head; // acquire; a stale (low) value only says true for a G a thief just took
    if (globalEnd - h > 0) {
      return true; // h < globalEnd <= tail: the ring holds that G
    }
    globalEnd = h; // plain, owner only: keeps the difference small as the indices wrap
    return false;
  }

  /** Free slots in the ring (owner only: tail is ours, head only grows, so it is a lower bound). */
  int room() {
    return SIZE - (tail - head);
  }

  /**
   * The owner's take of runnext (Go's runqget first step: one CAS, no retry), which then nulls its
   * slot (class doc). Its G inherits the time slice.
   */
  G takeOwnRunnext() {
    long seq = runnext; // acquire: as in takeRunnext
    if (seq != 0) {
      int at = base + NEXT + (int) (seq & 1);
      G next = slots[at];
      if (RUNNEXT.compareAndSet(this, seq, 0)) {
        slots[at] = null; // after the CAS: a consumer still reading fails its own (class doc)
        return next;
      }
    }
    return null;
  }

  /**
   * The owner's take of runnext if it still holds {@code g}: a task that ran g's future in place
   * (HelpingFuture) takes its G back, which an M would otherwise pop later only to find the run
   * claimed (ForkJoinPool's join takes its task off the deque's top the same way). One CAS, as
   * in takeOwnRunnext; a thief whose CAS won takes the G instead, and its M skips it.
   */
  boolean takeOwnRunnextIf(G g) {
    long seq = runnext; // acquire: as in takeRunnext
    if (seq != 0) {
      int at = base + NEXT + (int) (seq & 1);
      if (slots[at] == g) {
        if (Mutations.TAKE_BACK_NO_CAS) { // a deliberate bug (RunnextTakeBackVsStealStress)
          Thread.onSpinWait();
          runnext = 0;
        } else if (!RUNNEXT.compareAndSet(this, seq, 0)) {
          return false; // a thief took it: its M finds the run claimed
        }
        slots[at] = null; // after the CAS, as in takeOwnRunnext
        return true;
      }
    }
    return false;
  }

  /**
   * The owner's take of the ring's newest G if it is {@code g}: the other half of {@link
   * #takeOwnRunnextIf}, for the child a task ran in place after submitting more (the first of
   * two children: the second displaced it from runnext to the tail; a tree's every level). Left
   * queued, such Gs pile up in the ring of a task that spawns and waits, overflow to the global
   * queue under the lock and come back, only to be popped and found claimed (ForkJoinPool's join
   * removes its task from the deque wherever it is). {@link #popNewest}'s protocol, and its
   * bound: false where a thief may be claiming the slot, or below a batch's end.
   */
  boolean takeOwnNewestIf(G g) {
    int t = tail; // plain: owner only
    int h = head; // acquire; may be stale (low): a pre-check, as in popNewest
    if (t == spawnedFrom || slots[base + ((t - 1) & MASK)] != g) {
      return false;
    }
    int high = h == lookHead && lookHigh - t > 0 ? lookHigh : t;
    if (t - 1 - h < (Mutations.POP_NEWEST_UNBOUNDED ? 1 : (high - h + 1) >>> 1)) {
      return t - 1 == h && takeHeadIf(g, h, t); // the only one: a consumer's CAS, as pollRing's
    }
    // Volatile store, then volatile load of head: popNewest's StoreLoad pair.
    TAIL.set(this, t - 1);
    int now = head;
    high = now == lookHead && lookHigh - t > 0 ? lookHigh : t;
    lookHead = now;
    lookHigh = high;
    if (t - 1 - now >= (Mutations.POP_NEWEST_UNBOUNDED ? 1 : (high - now + 1) >>> 1)) {
      slots[base + ((t - 1) & MASK)] = null; // ours, as in popNewest
      return true;
    }
    TAIL.lazySet(this, t); // a thief may be claiming it: publish it again (release), as there
    return false;
  }

  /** pollRing's take of the head G at {@code h}, if it is {@code g}: one CAS, no retry. */
  private boolean takeHeadIf(G g, int h, int t) {
    if (slots[base + (h & MASK)] != g || !HEAD.compareAndSet(this, h, h + 1)) {
      return false; // CAS (release), as in pollRing: a thief that won took g
    }
    if (cleared == h) {
      slots[base + (h & MASK)] = null; // after the CAS, as in pollRing
      cleared = h + 1;
    } else {
      clearTaken(h + 1, t);
    }
    return true;
  }

  /** Takes runnext as a consumer (a retaken P's move): one CAS, no retry. */
  G takeRunnext() {
    long seq = runnext; // acquire: the slot was written before seq was published
    if (seq != 0) {
      // Before the CAS: after it, the owner may reuse the slot.
      G next = slots[base + NEXT + (int) (seq & 1)];
      if (RUNNEXT.compareAndSet(this, seq, 0)) {
        return next;
      }
    }
    return null;
  }

  /**
   * The owner's take of the ring's head G (Go's runqget after runnext); it nulls the slot, and
   * those other consumers took since (class doc). Null when the ring is empty.
   */
  G pollRing() {
    for (; ; ) {
      int h = head; // acquire: synchronizes with other consumers' CAS
      int t = tail; // plain: owner only
      if (t == h) {
        if (cleared != h) {
          clearTaken(h, t);
        }
        if (runnext == 0) { // only the owner puts: both slots hold taken Gs, if any (class doc)
          slots[base + NEXT] = null;
          slots[base + NEXT + 1] = null;
        }
        return null;
      }
      G g = slots[base + (h & MASK)];
      // CAS (release): thieves race for the same slot; the winner owns g.
      if (HEAD.compareAndSet(this, h, h + 1)) {
        if (cleared == h) { // as a rule: nothing taken by others since our last take
          slots[base + (h & MASK)] = null; // after the CAS (class doc)
          cleared = h + 1;
        } else {
          clearTaken(h + 1, t);
        }
        return g;
      }
    }
  }

  /**
   * Owner: nulls the slots taken below {@code to} (head, or a head the owner just claimed up to)
   * and not nulled yet. Only the ring's last SIZE indices below {@code t} (the tail) can be
   * nulled: an older index's slot has been reused for a G at or above head.
   */
  private void clearTaken(int to, int t) {
    int from = cleared - (t - SIZE) < 0 ? t - SIZE : cleared; // by difference: the indices wrap
    for (int i = from; to - i > 0; i++) {
      slots[base + (i & MASK)] = null;
    }
    cleared = to;
  }

  /**
   * Takes the ring's newest G when this P's own tasks pushed it and no thief can be claiming it,
   * else the head G ({@link #pollRing}); null when the ring is empty. A deviation from Go, whose
   * owner takes its ring FIFO (docs/design.md, deviations): depth-first for fork-join trees, as
   * ForkJoinPool's owner. Gs that came in a batch (outside submissions through the global queue,
   * a steal, a retaken P's work) keep Go's order: the newest G is taken only while tail is above
   * the last batch's end ({@code spawnedFrom}; tail never goes below it, so equality says it all,
   * even across the indices' wrap).
   *
   * <p>Why no G is taken twice. Go's thieves ({@link #grab}) read head, then tail, then claim
   * {@code ceil((tail - head) / 2)} Gs from the head by one CAS on head. The owner lowers tail by
   * a volatile store, then reads head ({@code now}). Volatile accesses fall in one total order
   * (the JMM's synchronization order), so a thief's CAS is either before our read, and shows in
   * {@code now}, or after it, and then:
   *
   * <ul>
   *   <li>A thief that claims from a head {@code h > now} read it after the CAS that wrote it,
   *       which follows our read of head, which follows our store: it reads the lowered tail or a
   *       later one, and claims below it.
   *   <li>A thief that claims from {@code now} read head and tail while head was {@code now}, so
   *       its tail is at most {@code high}: the highest tail in effect since head became {@code
   *       now}. Tail only grows between the owner's looks, so that is the current tail, or, when
   *       head had the same value at the last look, the larger of it and that look's {@code high}
   *       ({@code lookHigh}). Such a thief claims below {@code now + ceil((high - now) / 2)}; a
   *       slot at or above that is the owner's.
   * </ul>
   *
   * Below the bound the store is undone (the slot's G was never cleared) and the head is taken
   * instead. Until then a consumer may read a tail one below head: a thief claimed the slot under
   * the lowered tail, so head is the tail about to be put back and the ring is empty, which is
   * what consumers take it for. Every other consumer claims at most what a thief does ({@link
   * #pollRingAsConsumer}: one; {@link #putSlow} is the owner). The bound keeps the ring's oldest
   * half for thieves, the overflow and the caller's fairness tick (SchedulingLoop).
   */
  G popNewest() {
    int t = tail; // plain: owner only
    int h = head; // acquire; may be stale (low), so only a pre-check
    if (cleared != h) {
      clearTaken(h, t); // what others took below h (class doc); a stale h only nulls fewer
    }
    // high as above; a thief claims at most ceil((high - head) / 2). Spelled out rather than in
    // helpers, as the slot accesses are: the interpreter pays a call per helper.
    int high = h == lookHead && lookHigh - t > 0 ? lookHigh : t;
    if (t == spawnedFrom
        || t - 1 - h < (Mutations.POP_NEWEST_UNBOUNDED ? 1 : (high - h + 1) >>> 1)) {
      return pollRing();
    }
    // Volatile store, then volatile load of head: the StoreLoad pair described above.
    TAIL.set(this, t - 1);
    int now = head;
    high = now == lookHead && lookHigh - t > 0 ? lookHigh : t;
    lookHead = now;
    lookHigh = high;
    if (t - 1 - now >= (Mutations.POP_NEWEST_UNBOUNDED ? 1 : (high - now + 1) >>> 1)) {
      G g = slots[base + ((t - 1) & MASK)];
      slots[base + ((t - 1) & MASK)] = null; // ours: a thief that reads it fails its CAS (above)
      return g;
    }
    // A thief may be claiming slot t - 1: publish it again (release; its G is unchanged).
    TAIL.lazySet(this, t);
    return pollRing();
  }

  // ---------------------------------------------------------------- thief side

  /**
   * runqsteal: grabs half of {@code victim}'s ring into this (the thief's own, empty) ring and
   * returns the oldest of the stolen Gs (a deviation: Go returns the newest), or null. With
   * {@code stealRunnext} an empty victim may also lose its runnext, after a short back-off when
   * {@code victimRunning}.
   */
  G stealFrom(RunQueue victim, boolean stealRunnext, boolean victimRunning) {
    int t = tail;
    int n = victim.grab(this, slots, base, t, stealRunnext, victimRunning);
    if (n == 0) {
      if ((moves & 1) != 0) {
        endMove(); // a claim grab started lost its CAS and then found nothing
      }
      return null;
    }

    // The oldest stolen G runs now, the rest wait in order: Go runs the newest of the batch and
    // relies on preemption, where here a long one would hold the older ones for its whole run.
    // Our ring is empty as a rule (head == t == tail): no consumer can claim below a tail of t,
    // so this CAS only fails if the ring was not (then Go's way, below).
    if (n > 1 && head == t && HEAD.compareAndSet(this, t, t + 1)) {
      G g = slots[base + (t & MASK)];
      slots[base + (t & MASK)] = null; // after the CAS, as the owner's takes (class doc)
      if (cleared == t) {
        cleared = t + 1;
      }
      TAIL.lazySet(this, t + n); // release: publishes the other stolen Gs to our own consumers
      spawnedFrom = t + n;
      endMove();
      return g;
    }
    n--;
    G g = slots[base + ((t + n) & MASK)];
    slots[base + ((t + n) & MASK)] = null;
    if (n == 0) {
      endMove(); // the one G is ours to run: taken, as any G an M takes
      return g;
    }
    int h = head;
    if (t - h + n >= SIZE) {
      endMove();
      throw new IllegalStateException("runqsteal: runq overflow");
    }
    TAIL.lazySet(this, t + n); // release: publishes the stolen Gs to our own consumers
    spawnedFrom = t + n;
    endMove();
    return g;
  }

  /**
   * runqgrab: copies n - n/2 of this ring's Gs (all of them never: half, rounded up) into the
   * ring at {@code batch[batchBase ..]} starting at index {@code batchHead}, then claims them with
   * one CAS on head.
   */
  private int grab(RunQueue thief,
      G[] batch, int batchBase, int batchHead, boolean stealRunnext, boolean victimRunning) {
    for (; ; ) {
      int h = head; // acquire: synchronize with other consumers
      int t = tail; // acquire: see the slots the owner published
      // Below zero: popNewest lowered tail under a slot another thief then claimed, and will put
      // it back; the ring is empty (popNewest's doc). Not a retry: the owner may be off its CPU.
      int n = Math.max(0, t - h);
      n = Switches.STEAL_HALF ? (Mutations.STEAL_HALF_DOWN ? n / 2 : n - n / 2) : Math.min(n, 1);
      if (n == 0) {
        if (stealRunnext) {
          long seq = runnext; // acquire: see takeRunnext
          if (seq != 0) {
            if (victimRunning && Switches.RUNNEXT_STEAL_BACKOFF) {
              // The owner is running and likely about to take runnext itself; a handoff costs
              // ~50 ns, so give it ~3 us before taking the G away from its cache.
              backoff3us();
            }
            G next = slots[base + NEXT + (int) (seq & 1)]; // before the CAS, as in takeRunnext
            if ((thief.moves & 1) == 0) {
              thief.startMove(); // before the claim (startMove)
            }
            if (!RUNNEXT.compareAndSet(this, seq, 0)) {
              continue;
            }
            if (Mutations.NEXT_SLOT_AFTER_CAS) {
              next = slots[base + NEXT + (int) (seq & 1)];
            }
            batch[batchBase + (batchHead & MASK)] = next;
            return 1;
          }
        }
        return 0;
      }
      if (n > SIZE / 2) {
        continue; // h and t read inconsistently (head moved a lot in between): retry
      }
      for (int i = 0; i < n; i++) {
        batch[batchBase + ((batchHead + i) & MASK)] = slots[base + ((h + i) & MASK)];
      }
      if ((thief.moves & 1) == 0) {
        thief.startMove(); // before the claim (startMove)
      }
      // CAS (release): claims the slots; on failure someone else took them, retry.
      if (Mutations.GRAB_NO_CAS) {
        HEAD.lazySet(this, h + n);
        return n;
      }
      if (HEAD.compareAndSet(this, h, h + n)) {
        return n;
      }
    }
  }

  private static void backoff3us() {
    long end = System.nanoTime() + 3_000;
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }

  /**
   * Takes one G as a consumer (like a thief): the ring's head, or runnext once the ring is empty;
   * null when both are. Any thread may call it (shutdownNow, P retirement, orphan sweeps).
   */
  G poll() {
    G g = pollRingAsConsumer();
    if (g != null) {
      return g;
    }
    for (long seq = runnext; seq != 0; seq = runnext) {
      G next = slots[base + NEXT + (int) (seq & 1)]; // before the CAS, as in takeRunnext
      if (RUNNEXT.compareAndSet(this, seq, 0)) { // CAS: the owner or a thief may race us
        return next;
      }
    }
    return null;
  }

  /**
   * The ring's head taken by a non-owner (tail read with acquire), or null if empty.
   */
  G pollRingAsConsumer() {
    for (; ; ) {
      int h = head;
      int t = tail; // acquire: we are not the owner
      int n = t - h;
      if (n <= 0) {
        // Empty. Below zero too: popNewest lowered tail under a slot a thief then claimed, so head
        // is the tail the owner is about to put back, and the ring holds nothing (popNewest's doc).
        return null;
      }
      if (n > SIZE) {
        continue; // inconsistent snapshot
      }
      G g = slots[base + (h & MASK)];
      if (HEAD.compareAndSet(this, h, h + 1)) { // CAS (release): the winner owns g
        return g;
      }
    }
  }

  /** runqempty: consistent snapshot of head, tail and runnext (volatile: see wakep protocol). */
  boolean isEmpty() {
    for (; ; ) {
      int h = head;
      int t = tail;
      long next = runnext;
      if (t == tail) {
        return h == t && next == 0;
      }
    }
  }

  /** Approximate length including runnext (stats). */
  int size() {
    int h = head;
    int t = tail;
    int n = Math.max(0, Math.min(SIZE, t - h));
    return runnext != 0 ? n + 1 : n;
  }

  /**
   * The G in runnext, or null (the dump: racy, it may name a G taken a moment ago; acquire: its
   * goid was written before it was put).
   */
  G peekRunnext() {
    long seq = runnext;
    return seq == 0 ? null : slots[base + NEXT + (int) (seq & 1)];
  }

  /** The ring's length without runnext (the dump). */
  int ringSize() {
    int h = head;
    int t = tail;
    return Math.max(0, Math.min(SIZE, t - h));
  }

  // Test seams.
  int headForTest() {
    return head;
  }

  int tailForTest() {
    return tail;
  }

  G runnextForTest() {
    return peekRunnext();
  }

  /** The slots (ring and runnext's) that hold a G: tests only, read by the owner. */
  int heldForTest() {
    int n = 0;
    for (G g : slots) {
      n += g != null ? 1 : 0;
    }
    return n;
  }

  /** The published length, unclamped (size() clamps a torn read): tests only, read-only. */
  int lengthForTest() {
    return tail - head;
  }
}
