package dev.pread.cache;

import com.carrotsearch.randomizedtesting.ThreadFilter;

/**
 * Ignores the JDK's own JFR threads in the thread-leak check: the first recording in the JVM starts
 * "JFR Periodic Tasks" (and friends), which live as long as the JVM, in the thread group of the
 * test that started it. The cache's own threads are not filtered.
 */
public final class JfrThreadsFilter implements ThreadFilter {
  @Override
  public boolean reject(Thread t) {
    return t.getName().startsWith("JFR ");
  }
}
