package dev.gmp;

/**
 * Card islands: the reference arrays that hold what the scheduler stores per task (a P's ring and
 * runnext, an M's running G), laid out so that a card-marking collector does not make two
 * processors write the same cache line for them.
 *
 * <p>Serial and Parallel GC follow every reference store into the heap with an unconditional card
 * mark: a byte store into the card table, one byte per 512 bytes of heap, so one 64-byte line of
 * the card table covers 32 KB of heap. The scheduler's per-P and per-M objects are allocated
 * together and sit within a few KB of each other, so two Ms that each store task references into
 * their own objects still write one card-table line from two CPUs, several times per task: under
 * those collectors that made fork/join trees at parallelism 2 run at 2.7x ForkJoinPool's time
 * (docs/benchmarks.md, "Card islands"). G1 marks only cross-region stores and reads the card
 * first; ZGC has no card marks.
 *
 * <p>An island is a {@code G[]} whose live slots sit between two runs of {@link #PAD} empty slots:
 * 32 KB each with compressed references, 64 KB without, so no other object lies within 32 KB of
 * a live slot and the card-table lines of the live slots' cards are the island's alone. Java
 * cannot ask where an object goes, and a collector moves it; size is the one guarantee that
 * survives both.
 *
 * <p>Cost: 64 KB per P and per M that has run a task, whatever the collector (telling it apart
 * takes the management beans, ~35 ms at the first executor); a P that replaces a retaken one
 * takes a drained zombie's island when there is one ({@link Retake}), so unmarked blocking does
 * not allocate one per retake.
 */
final class CardIsland {
  /** Empty slots on each side of the live ones: 32 KB of 4-byte references. */
  static final int PAD = 8 * 1024;

  /**
   * The island of every M whose thread has not started yet: its slot is never written (only a
   * running M stores its task), so all of them can share it.
   */
  static final G[] UNSTARTED_M = new G[PAD + 1];

  private CardIsland() {}

  /** A new island with {@code live} slots, at indices {@code PAD .. PAD + live - 1}. */
  static G[] allocate(int live) {
    return new G[PAD + live + PAD];
  }
}
