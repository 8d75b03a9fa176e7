package dev.pread.bench.lucene;

import java.io.IOException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;

/**
 * A merge through the same Directory for {@link DisturbedRun}: a thread opens an {@link
 * IndexWriter} on the index the queries read and force-merges it to one segment, reading every
 * segment with Lucene's merge context and writing the merged one, as a node does while it indexes.
 * Nothing is committed: at the end the writer rolls back, which deletes the merged files, so the
 * index the queries (and later runs) read is unchanged.
 */
final class MergeDisturbance implements DisturbedRun.Disturbance {
  private final Directory dir;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private Thread thread;
  private volatile boolean done;
  private volatile IndexWriter writer;
  private int segmentsBefore;
  private long startNanos;
  private double seconds = -1;
  private double stoppedAfter = -1;
  /** Bytes of the files the merge had written when it was stopped or ended; -1 if unknown. */
  private long writtenBytes = -1;

  MergeDisturbance(Directory dir) {
    this.dir = dir;
  }

  @Override
  public void start() throws Exception {
    segmentsBefore = SegmentInfos.readLatestCommit(dir).size();
    startNanos = System.nanoTime();
    thread = new Thread(() -> {
      try {
        IndexWriterConfig config = new IndexWriterConfig()
            .setOpenMode(IndexWriterConfig.OpenMode.APPEND)
            .setCommitOnClose(false);
        writer = new IndexWriter(dir, config);
        writer.forceMerge(1);
        seconds = (System.nanoTime() - startNanos) / 1e9;
      } catch (Throwable e) {
        failure.set(e);
      } finally {
        done = true;
      }
    }, "merge");
    thread.start();
  }

  @Override
  public boolean finished() {
    return done;
  }

  @Override
  public void stop() throws Exception {
    IndexWriter w = writer;
    boolean aborted = !done && w != null;
    if (aborted) {
      writtenBytes = uncommittedBytes(dir);
      w.rollback(); // aborts the running merge
    }
    thread.join();
    w = writer;
    if (w != null && w.isOpen()) {
      if (!aborted) {
        writtenBytes = uncommittedBytes(dir);
      }
      w.rollback(); // deletes the merged segment's files: nothing was committed
    }
    if (aborted) {
      stoppedAfter = (System.nanoTime() - startNanos) / 1e9;
      return; // the merge's failure is the abort's
    }
    Throwable e = failure.get();
    if (e != null) {
      throw new IllegalStateException("the merge failed: " + e, e);
    }
  }

  /**
   * A writer's progress: bytes of the files in {@code dir} that the last commit does not reference
   * (new segments', temporary files included), as far as written; -1 if the directory cannot be
   * listed.
   */
  static long uncommittedBytes(Directory dir) {
    try {
      Set<String> committed = new HashSet<>(SegmentInfos.readLatestCommit(dir).files(true));
      long bytes = 0;
      for (String name : dir.listAll()) {
        if (!committed.contains(name) && !name.equals(IndexWriter.WRITE_LOCK_NAME)) {
          try {
            bytes += dir.fileLength(name);
          } catch (IOException gone) {
            // deleted meanwhile (a temporary file the writer was done with)
          }
        }
      }
      return bytes;
    } catch (IOException e) {
      return -1;
    }
  }

  @Override
  public String describe() {
    String written = writtenBytes < 0 ? "" : String.format(Locale.ROOT, ", having written %,.0f MB of the merged segment",
        writtenBytes / 1e6);
    return stoppedAfter >= 0
        ? String.format(Locale.ROOT, "force-merge of %d segments to 1 through the same Directory, stopped unfinished"
            + " after %.1f s (the regime's cap)%s, and rolled back", segmentsBefore, stoppedAfter, written)
        : String.format(Locale.ROOT, "force-merge of %d segments to 1 through the same Directory, %.1f s%s, rolled back",
            segmentsBefore, seconds, written);
  }
}
