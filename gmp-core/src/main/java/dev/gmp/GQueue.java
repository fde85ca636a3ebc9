package dev.gmp;

/**
 * An intrusive FIFO of Gs linked through {@link G#schedlink} (Go's gQueue). Not thread-safe:
 * shutdownNow collects what it drains in one, under the scheduler lock.
 */
final class GQueue {
  G head;
  G tail;

  void push(G g) {
    g.schedlink = null;
    if (tail == null) {
      head = g;
    } else {
      tail.schedlink = g;
    }
    tail = g;
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
    return g;
  }
}
