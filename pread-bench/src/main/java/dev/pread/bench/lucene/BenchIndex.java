package dev.pread.bench.lucene;

import dev.pread.bench.cli.Progress;
import dev.pread.bench.report.Format;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.MMapDirectory;

/**
 * The Lucene-level benchmark's index, built once per corpus and target size and reused (a
 * properties file in the folder records how it was built). Fields: {@code body} (tokenized by
 * StandardAnalyzer, stored), {@code path} (keyword, stored), {@code size} (points, doc values and
 * stored) and {@code vector} (a {@value #DIMS}-dimension KNN vector derived from the text, see
 * {@link #vectorOf}). To reach the target size the corpus is indexed again with a deterministic
 * variation per pass (path prefix {@code rN/}; every (N+2)th line dropped), then force-merged.
 *
 * <p>The build is deterministic: one thread adds the documents and runs every flush and merge
 * ({@link SerialMergeScheduler}), so the folder's size at each check, and with it the number of
 * documents, the segments and the order of the documents in them, are the same in every build of
 * one corpus, target, Lucene and JDK. The query mix is sampled from the index (terms by document
 * frequency, phrases and vectors from random documents), so two builds run the same queries only
 * because of this. With merges in background threads the size at a check depends on which merges
 * have finished: two such builds of the 3 GiB index differed by 256 documents and in 988 of the
 * 1000 queries. The price: merges do not overlap the indexing, so the build takes longer.
 */
final class BenchIndex {
  static final int DIMS = 128;
  private static final int FORMAT = 3;
  /** Largest magnitude of a vector component: keeps every dot product exact in float arithmetic. */
  static final int MAX_COMPONENT = 15;

  private BenchIndex() {}

  /** Folder of the index for this corpus and target size under {@code dir}. */
  static Path folder(Path dir, Corpus corpus, long targetBytes) {
    return dir.resolve("index-" + corpus.name() + "-" + Format.bytes(targetBytes).replace(" ", ""));
  }

  /** Builds the index unless a complete one with the same recipe is there; returns its folder. */
  static Path ensure(Path dir, Corpus corpus, long targetBytes) throws IOException {
    Path folder = folder(dir, corpus, targetBytes);
    Path recipe = folder.resolve("bench-index.properties");
    Properties want = new Properties();
    want.setProperty("format", Integer.toString(FORMAT));
    want.setProperty("corpus", corpus.name());
    want.setProperty("target", Long.toString(targetBytes));
    if (Files.isRegularFile(recipe)) {
      Properties have = new Properties();
      try (var in = Files.newInputStream(recipe)) {
        have.load(in);
      }
      if (want.getProperty("format").equals(have.getProperty("format"))
          && want.getProperty("corpus").equals(have.getProperty("corpus"))
          && want.getProperty("target").equals(have.getProperty("target"))) {
        removeUnreferenced(folder);
        System.out.printf("Reusing index %s (%s, %s docs)%n", folder, Format.bytes(committedSizeOf(folder)),
            have.getProperty("docs"));
        return folder;
      }
    }
    if (Files.exists(folder)) {
      try (Stream<Path> files = Files.list(folder)) {
        for (Path p : (Iterable<Path>) files::iterator) {
          Files.delete(p);
        }
      }
    }
    Files.createDirectories(folder);
    long docs = build(folder, corpus, targetBytes);
    want.setProperty("docs", Long.toString(docs));
    try (var out = Files.newOutputStream(recipe)) {
      want.store(out, "how ./pread bench built this index; delete the folder to rebuild");
    }
    return folder;
  }

  private static long build(Path folder, Corpus corpus, long targetBytes) throws IOException {
    // Flush often enough that the folder size tracks the target.
    return build(folder, corpus, targetBytes, Math.max(16, Math.min(128, targetBytes / 4 / (1 << 20))));
  }

  /** Builds the index in {@code folder}, flushing every {@code ramBufferMB}; returns its documents. */
  static long build(Path folder, Corpus corpus, long targetBytes, double ramBufferMB) throws IOException {
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer());
    config.setRAMBufferSizeMB(ramBufferMB);
    config.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
    config.setMergeScheduler(new SerialMergeScheduler()); // deterministic: see the class's Javadoc
    AtomicLong docs = new AtomicLong();
    // Merges read the vectors they have written at random to build the merged segment's HNSW graph:
    // through mappings those reads are memory loads, where a buffered input makes each a system call.
    try (FSDirectory d = new MMapDirectory(folder);
        IndexWriter writer = new IndexWriter(d, config);
        Progress pb = Progress.start("Indexing " + corpus.name(), targetBytes >> 20, " MiB")) {
      for (int pass = 0; sizeOf(folder) < targetBytes; pass++) {
        int p = pass;
        long before = docs.get();
        boolean whole = corpus.forEach(doc -> {
          if (docs.get() % 256 == 0) {
            long size = sizeOf(folder);
            pb.stepTo(Math.min(size, targetBytes) >> 20);
            if (size >= targetBytes) {
              return false; // big enough
            }
          }
          try {
            writer.addDocument(document(p == 0 ? doc.path() : "r" + p + "/" + doc.path(), vary(doc.text(), p)));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          docs.incrementAndGet();
          return true;
        });
        if (!whole) {
          break;
        }
        writer.flush();
        if (docs.get() == before) {
          break; // an empty corpus: stop rather than loop
        }
      }
      pb.setExtraMessage("force-merging");
      writer.forceMerge(targetBytes >= (1L << 30) ? 4 : 2);
      writer.commit();
      pb.stepTo(pb.getMax());
    }
    return docs.get();
  }

  /** Pass 0 is the text itself; pass N drops every (N+2)th line. */
  static String vary(String text, int pass) {
    if (pass == 0) {
      return text;
    }
    StringBuilder sb = new StringBuilder(text.length());
    int line = 0;
    for (String l : text.split("\n", -1)) {
      if (++line % (pass + 2) != 0) {
        sb.append(l).append('\n');
      }
    }
    return sb.toString();
  }

  static Document document(String path, String text) {
    Document doc = new Document();
    doc.add(new StringField("path", path, Field.Store.YES));
    doc.add(new TextField("body", text, Field.Store.YES));
    long size = text.length();
    doc.add(new LongPoint("size", size));
    doc.add(new NumericDocValuesField("size", size));
    doc.add(new StoredField("size", size));
    doc.add(new KnnFloatVectorField("vector", vectorOf(text), VectorSimilarityFunction.MAXIMUM_INNER_PRODUCT));
    return doc;
  }

  /**
   * A vector from the text by feature hashing: each lower-cased word adds +1 or -1 to one of
   * {@value #DIMS} dimensions, both chosen by a hash of the word; each component is then clamped
   * to [-{@value #MAX_COMPONENT}, {@value #MAX_COMPONENT}]. Deterministic, so queries can be made
   * the same way from any text. Scored by maximum inner product, unnormalized: with whole-number
   * components that small, every partial sum of a dot product is a whole number below 2^24, exact
   * in float arithmetic in any order. So a score does not depend on how the dot product is summed:
   * the Vector API's SIMD reductions (a JVM started with {@code --add-modules jdk.incubator.vector},
   * once the JIT compiled them) give the bits scalar code gives, and the hit checksums, which
   * include scores, stay exact. Unit vectors would differ in the last bits between an interpreted
   * and a compiled reduction.
   */
  static float[] vectorOf(String text) {
    float[] v = new float[DIMS];
    int start = -1;
    for (int i = 0; i <= text.length(); i++) {
      boolean letter = i < text.length() && Character.isLetter(text.charAt(i));
      if (letter && start < 0) {
        start = i;
      } else if (!letter && start >= 0) {
        int h = mix(lowerCaseHash(text, start, i));
        v[h & (DIMS - 1)] += ((h >>> 7) & 1) == 0 ? 1f : -1f;
        start = -1;
      }
    }
    boolean zero = true;
    for (int i = 0; i < DIMS; i++) {
      v[i] = Math.max(-MAX_COMPONENT, Math.min(MAX_COMPONENT, v[i]));
      zero &= v[i] == 0;
    }
    if (zero) {
      v[0] = 1;
    }
    return v;
  }

  /**
   * {@code text.substring(from, to).toLowerCase(Locale.ROOT).hashCode()}, without making either
   * string when the word is ASCII (most of a Java source): lower-casing an ASCII letter maps it to
   * one char, so the hash is the same sum over the lowered chars. Other words take the strings'
   * way, where lower-casing may change the length or depend on the letters around (final sigma).
   * The two strings per word were a visible share of the index build's time.
   */
  static int lowerCaseHash(String text, int from, int to) {
    int h = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c >= 0x80) {
        return text.substring(from, to).toLowerCase(java.util.Locale.ROOT).hashCode();
      }
      h = 31 * h + (c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
    }
    return h;
  }

  private static int mix(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    return h ^ (h >>> 16);
  }

  /** Bytes of all files in {@code folder}. */
  /**
   * Deletes the files of the index folder that its commit does not reference: a merge regime's
   * worker killed before its rollback leaves its merged segment behind. An IndexWriter deletes them
   * when it opens; it commits nothing.
   */
  static void removeUnreferenced(Path folder) throws IOException {
    try (org.apache.lucene.store.Directory d = new org.apache.lucene.store.NIOFSDirectory(folder);
        org.apache.lucene.index.IndexWriter w = new org.apache.lucene.index.IndexWriter(d,
            new org.apache.lucene.index.IndexWriterConfig()
                .setOpenMode(org.apache.lucene.index.IndexWriterConfig.OpenMode.APPEND).setCommitOnClose(false))) {
      w.rollback();
    }
  }

  /** Bytes of the files the index's latest commit references. */
  public static long committedSizeOf(Path folder) throws IOException {
    try (org.apache.lucene.store.Directory d = new org.apache.lucene.store.NIOFSDirectory(folder)) {
      long sum = 0;
      for (String f : org.apache.lucene.index.SegmentInfos.readLatestCommit(d).files(true)) {
        sum += Files.size(folder.resolve(f));
      }
      return sum;
    }
  }

  static long sizeOf(Path folder) {
    try (Stream<Path> files = Files.list(folder)) {
      return files.mapToLong(p -> {
        try {
          return Files.isRegularFile(p) ? Files.size(p) : 0;
        } catch (IOException e) {
          return 0; // deleted by a merge meanwhile
        }
      }).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
