package dev.pread.cache;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.MergeScheduler;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * Runs test code in a real merge thread of Lucene's {@code ConcurrentMergeScheduler}: a writer over
 * a heap directory commits two segments and force-merges them, and the scheduler runs the code in
 * its merge thread before that merge.
 */
public final class InMergeThread {
  /** Test code that may throw. */
  public interface Work {
    void run() throws Exception;
  }

  private static final class Scheduler extends ConcurrentMergeScheduler {
    private final Work work;
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile boolean ran;

    Scheduler(Work work) {
      this.work = work;
    }

    @Override
    protected void doMerge(MergeScheduler.MergeSource mergeSource, MergePolicy.OneMerge merge) throws IOException {
      if (!ran) {
        ran = true;
        try {
          if (!BlockCache.LUCENE_MERGE_THREADS.test(Thread.currentThread())) {
            throw new AssertionError("not told as a merge thread: " + Thread.currentThread());
          }
          work.run();
        } catch (Throwable e) {
          failure.set(e);
        }
      }
      super.doMerge(mergeSource, merge);
    }
  }

  private InMergeThread() {}

  /** Runs {@code work} in a merge thread and rethrows what it threw. */
  public static void run(Work work) throws Exception {
    Scheduler scheduler = new Scheduler(work);
    try (ByteBuffersDirectory other = new ByteBuffersDirectory();
        IndexWriter w = new IndexWriter(other, new IndexWriterConfig().setMergeScheduler(scheduler))) {
      for (int s = 0; s < 2; s++) {
        Document doc = new Document();
        doc.add(new StringField("id", "doc" + s, Field.Store.YES));
        w.addDocument(doc);
        w.commit();
      }
      w.forceMerge(1);
    }
    if (!scheduler.ran) {
      throw new AssertionError("no merge ran");
    }
    if (scheduler.failure.get() instanceof Exception e) {
      throw e;
    } else if (scheduler.failure.get() instanceof Error e) {
      throw e;
    }
  }
}
