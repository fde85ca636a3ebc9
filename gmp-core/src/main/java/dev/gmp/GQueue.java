package dev.gmp;

/**
 * An intrusive FIFO of Gs linked through {@link G#schedlink} (Go's gQueue). Not thread-safe: the
 * global queue uses it under the scheduler lock, and batches are built by one thread.
 */
final class GQueue {
  G head;
  G tail;
  int size;

  boolean isEmpty() {
    return head == null;
  }

  void push(G g) {
    g.schedlink = null;
    if (tail == null) {
      head = g;
    } else {
      tail.schedlink = g;
    }
    tail = g;
    size++;
  }

  G pop() {
    G g = head;
    if (g == null) {
      return null;
    }
    head = g.schedlink;
    if (head == null) {
      tail = null;
    }
    g.schedlink = null;
    size--;
    return g;
  }
}
