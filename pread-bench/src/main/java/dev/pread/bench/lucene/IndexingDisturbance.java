package dev.pread.bench.lucene;

import dev.pread.nativeio.CpuPriority;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.store.Directory;

/**
 * A bulk-indexing load through the same Directory for {@link DisturbedRun}: a thread adds documents
 * to an {@link IndexWriter} on the index the queries read, as fast as it can or at a fixed rate of
 * source text, and refreshes a near-real-time reader every {@link #REFRESH_SECONDS} s, as a node
 * that indexes does at OpenSearch's default refresh interval. Each refresh flushes a small segment
 * (written, then opened through the Directory), and the writer's {@link ConcurrentMergeScheduler}
 * merges them as they pile up, reading them with Lucene's merge context.
 *
 * <p>What it leaves out: the queries keep searching the commit they opened, not the refreshed
 * reader, so that every query's hits stay those of the reference; the new segments' reads are
 * the writer's own (flush, refresh, merges). Nothing is committed: at the end the writer rolls
 * back, which deletes what it wrote, so the index the queries (and later runs) read is unchanged.
 *
 * <p>As fast as it can, the writer does as much work beside every Directory as its thread gets
 * CPU for, and {@link #describe()} says how much that was. A rate is a target that gives every
 * Directory the same work; a writer slowed by the queries, the disk or the limit falls behind it.
 */
final class IndexingDisturbance implements DisturbedRun.Disturbance {
  /** Seconds between two refreshes of the near-real-time reader. */
  static final double REFRESH_SECONDS = 1.0;

  /** The most the writer may fall behind its rate before it gives up catching up (no burst). */
  private static final long MAX_BACKLOG_NANOS = 1_000_000_000L;

  private final Directory dir;
  private final List<Corpus.Doc> docs;
  private final double charsPerSecond;
  private final int nice;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final CountingMergeScheduler merges = new CountingMergeScheduler();
  private Thread thread;
  private volatile boolean stopping;
  private volatile boolean done;
  private volatile IndexWriter writer;
  private long startNanos;
  private double seconds = -1;
  private long added;
  private long addedChars;
  private int refreshes;
  private long writtenBytes = -1;

  /**
   * @param docs the documents to add, in turn and again from the first once all were added
   * @param charsPerSecond the rate, in characters of source text a second; {@link
   *     Double#POSITIVE_INFINITY} for as fast as the thread indexes
   * @param nice the writer thread's nice value, which the merge threads it starts inherit; 0 leaves
   *     it at the creating thread's
   */
  IndexingDisturbance(Directory dir, List<Corpus.Doc> docs, double charsPerSecond, int nice) {
    if (docs.isEmpty()) {
      throw new IllegalArgumentException("no documents to index");
    }
    if (!(charsPerSecond > 0)) {
      throw new IllegalArgumentException("indexing rate must be positive, got " + charsPerSecond);
    }
    this.dir = dir;
    this.docs = docs;
    this.charsPerSecond = charsPerSecond;
    if (nice < 0 || nice > CpuPriority.MAX_NICE) {
      throw new IllegalArgumentException("nice value must be 0 to " + CpuPriority.MAX_NICE + ": " + nice);
    }
    this.nice = nice;
  }

  @Override
  public void start() throws Exception {
    startNanos = System.nanoTime();
    thread = new Thread(this::index, "indexing");
    thread.start();
  }

  private void index() {
    DirectoryReader nrt = null;
    try {
      if (nice > 0 && !CpuPriority.yieldTo(nice)) {
        throw new IllegalStateException("cannot set the indexing thread's nice value to " + nice
            + " (setpriority refused, or no native access)");
      }
      IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer())
          .setOpenMode(IndexWriterConfig.OpenMode.APPEND)
          .setCommitOnClose(false)
          .setMergeScheduler(merges);
      writer = new IndexWriter(dir, config);
      nrt = DirectoryReader.open(writer);
      long t0 = System.nanoTime();
      long nextRefresh = t0 + (long) (REFRESH_SECONDS * 1e9);
      long credited = 0; // characters the pacing counts since t0
      for (int i = 0; !stopping; i++) {
        long due = t0 + (long) (credited / charsPerSecond * 1e9);
        long now = System.nanoTime();
        if (now - due > MAX_BACKLOG_NANOS) {
          t0 = now; // behind by over a second: go on at the rate from here rather than in a burst
          credited = 0;
        }
        while (!stopping && (now = System.nanoTime()) < due) {
          LockSupport.parkNanos(due - now);
        }
        if (stopping) {
          break;
        }
        Corpus.Doc doc = docs.get(i % docs.size());
        writer.addDocument(BenchIndex.document("indexed/" + i / docs.size() + "/" + doc.path(), doc.text()));
        added++;
        addedChars += doc.text().length();
        credited += doc.text().length();
        if (System.nanoTime() >= nextRefresh) {
          DirectoryReader next = DirectoryReader.openIfChanged(nrt, writer);
          if (next != null) {
            nrt.close();
            nrt = next;
            refreshes++;
          }
          nextRefresh += (long) (REFRESH_SECONDS * 1e9);
        }
      }
      seconds = (System.nanoTime() - startNanos) / 1e9;
    } catch (Throwable e) {
      failure.set(e);
    } finally {
      try {
        if (nrt != null) {
          nrt.close();
        }
      } catch (IOException e) {
        failure.compareAndSet(null, e);
      }
      done = true;
    }
  }

  /** True only if the writer failed: a load runs until it is stopped. */
  @Override
  public boolean finished() {
    return done;
  }

  @Override
  public void stop() throws Exception {
    stopping = true;
    thread.join();
    IndexWriter w = writer;
    if (w != null) {
      writtenBytes = MergeDisturbance.uncommittedBytes(dir);
      w.rollback(); // aborts running merges and deletes every file it wrote: nothing was committed
    }
    Throwable e = failure.get();
    if (e != null) {
      throw new IllegalStateException("the indexing load failed: " + e, e);
    }
  }

  /** Documents added so far; read after {@link #stop()}. */
  long added() {
    return added;
  }

  /** Characters of source text added so far; read after {@link #stop()}. */
  long addedChars() {
    return addedChars;
  }

  /** Near-real-time refreshes that opened a new reader; read after {@link #stop()}. */
  int refreshes() {
    return refreshes;
  }

  /** Merges the writer finished; read after {@link #stop()}. */
  int mergesFinished() {
    return merges.finished.get();
  }

  /** Bytes of the files the writer had written when it stopped, as far as written; -1 if unknown. */
  long writtenBytes() {
    return writtenBytes;
  }

  @Override
  public String describe() {
    double s = seconds > 0 ? seconds : (System.nanoTime() - startNanos) / 1e9;
    return String.format(Locale.ROOT, "bulk indexing through the same Directory %s:"
            + " %,d documents, %.1f MB/s of source text reached over %.1f s, %d refreshes of a near-real-time reader,"
            + " %d merges finished, %s of new segments written, rolled back",
        Double.isInfinite(charsPerSecond) ? "as fast as one thread indexes"
            : String.format(Locale.ROOT, "at %.1f MB/s of source text (a target)", charsPerSecond / 1e6),
        added, addedChars / 1e6 / s, s, refreshes, mergesFinished(),
        writtenBytes < 0 ? "an unknown size" : String.format(Locale.ROOT, "%,.0f MB", writtenBytes / 1e6));
  }

  /** Lucene's merge scheduler, counting the merges it finishes (not those the rollback aborts). */
  private static final class CountingMergeScheduler extends ConcurrentMergeScheduler {
    final AtomicInteger finished = new AtomicInteger();

    @Override
    protected void doMerge(MergeSource mergeSource, MergePolicy.OneMerge merge) throws IOException {
      super.doMerge(mergeSource, merge);
      if (!merge.isAborted()) {
        finished.incrementAndGet();
      }
    }
  }
}
