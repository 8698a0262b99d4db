package dev.memsidecar.conformance;

import dev.memsidecar.api.MemoryException;
import java.lang.reflect.Method;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * Adds the seed to every failure of a conformance test, so the message itself says how to replay
 * it: {@code -Dconformance.seed=N -Dtest=Class#method}. Skipped tests (failed assumptions) pass
 * through untouched.
 */
final class SeedReporter
    implements TestExecutionExceptionHandler, LifecycleMethodExecutionExceptionHandler {

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    throw withSeed(context, failure);
  }

  @Override
  public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    throw withSeed(context, failure);
  }

  @Override
  public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    throw withSeed(context, failure);
  }

  /** The replay hint for the test of {@code context}. */
  static String replayHint(ExtensionContext context) {
    String test =
        context.getTestClass().map(Class::getName).orElse("?")
            + context.getTestMethod().map(Method::getName).map(m -> "#" + m).orElse("");
    return "replay with -Dconformance.seed=" + MemoryStoreConformance.SEED + " -Dtest=" + test;
  }

  private static Throwable withSeed(ExtensionContext context, Throwable failure) {
    if (failure instanceof TestAbortedException) {
      return failure;
    }
    String hint = replayHint(context);
    String message =
        switch (failure) {
          case AssertionError e -> e.getMessage() == null ? "" : e.getMessage();
          case MemoryException e -> "MemoryException " + e.code() + ": " + e.getMessage();
          default -> failure.toString();
        };
    AssertionError wrapped = new AssertionError(message + "\n  [" + hint + "]", failure);
    wrapped.setStackTrace(failure.getStackTrace());
    return wrapped;
  }
}
