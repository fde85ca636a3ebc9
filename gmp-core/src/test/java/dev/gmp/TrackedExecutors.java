package dev.gmp;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The executors a test made, each terminated (threads gone) after the test whatever its outcome:
 * {@code @RegisterExtension final TrackedExecutors tracked = new TrackedExecutors();}, then
 * {@code tracked.track(executor)}.
 */
final class TrackedExecutors implements AfterEachCallback {
  private final List<GmpExecutor> executors = new ArrayList<>();

  GmpExecutor track(GmpExecutor ex) {
    executors.add(ex);
    return ex;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    for (GmpExecutor ex : executors) {
      TestSupport.terminate(ex);
    }
    executors.clear();
  }
}
