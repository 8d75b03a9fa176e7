package dev.pread.cache;

/**
 * Tells Lucene's {@code ConcurrentMergeScheduler} merge threads from other threads, by the class
 * of the thread ({@code ConcurrentMergeScheduler.MergeThread} or a subclass, such as the merge
 * threads of OpenSearch's scheduler). The answer for a class is computed once. Thread-safe.
 */
final class LuceneMergeThreads {
  /** The class of {@code ConcurrentMergeScheduler}'s merge threads (protected: not visible here). */
  static final String MERGE_THREAD_CLASS = "org.apache.lucene.index.ConcurrentMergeScheduler$MergeThread";

  private static final ClassValue<Boolean> IS_MERGE_THREAD =
      new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
          for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(MERGE_THREAD_CLASS)) {
              return true;
            }
          }
          return false;
        }
      };

  private LuceneMergeThreads() {}

  /** True if {@code thread} is one of {@code ConcurrentMergeScheduler}'s merge threads. */
  static boolean test(Thread thread) {
    return IS_MERGE_THREAD.get(thread.getClass());
  }
}
