package dev.pread.bench.jmh;

import dev.pread.store.AdaptiveDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.store.MMapDirectory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The CPU cost of decoding through a directory's input while the files are in memory, where a
 * query's time goes to small reads rather than to I/O: {@code AdaptiveDirectory} reading its
 * mappings against {@code MMapDirectory}.
 *
 * <ul>
 *   <li>{@link #readBytes}: {@code readByte()} over a random 16 KiB run of a file, the access
 *       pattern of LZ4's token loop;
 *   <li>{@link #readVInts}: {@code readVInt()} over a random 16 KiB run of a file of variable-length
 *       integers, as postings and terms dictionaries decode;
 *   <li>{@link #storedFields}: 10 random documents' stored fields from an index of 50,000 documents
 *       (LZ4-compressed blocks), the last step of every query of {@code ./pread bench}.
 * </ul>
 *
 * <p><b>Regime:</b> warm; the files are written in setup and stay in the page cache. Parameters:
 * {@code directory} ({@code mmap}, {@code adaptive}), {@code dataDir} (a directory created in it
 * holds the files; deleted at the end). Threads come from JMH's {@code -t}; each has its own
 * clones and readers, as Lucene's query threads do.
 *
 * <p><b>Verification:</b> each operation's result is checked against the value computed from the
 * bytes written, so a directory that returned wrong bytes fails the run.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(2)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
public class DecodeBenchmark {
  private static final int RUN = 16 << 10;
  private static final int FILE_BYTES = 32 << 20;
  private static final int DOCS = 50_000;

  /** The files and the opened directory, shared by all threads of a trial. */
  @State(Scope.Benchmark)
  public static class Shared {
    @Param({"mmap", "adaptive"})
    public String directory;

    @Param({"bench-data"})
    public String dataDir;

    Path path;
    Directory dir;
    IndexInput bytes;
    IndexInput vints;
    /** Sum of the bytes of each run: bytesSums[i] for the run at i * RUN. */
    long[] byteSums;
    long[] vintSums;
    /** vintStarts[i]: the file offset of the first vInt at or after i * RUN. */
    long[] vintStarts;
    DirectoryReader reader;
    int[] docLengths;

    @Setup(Level.Trial)
    public void open() throws IOException {
      Path parent = Path.of(dataDir);
      Files.createDirectories(parent);
      path = Files.createTempDirectory(parent, "decode-");
      dir =
          switch (directory) {
            case "mmap" -> new MMapDirectory(path);
            case "adaptive" -> new AdaptiveDirectory(path);
            default -> throw new IllegalArgumentException("directory: mmap or adaptive, not " + directory);
          };
      SplittableRandom random = new SplittableRandom(42);
      int runs = FILE_BYTES / RUN;
      byteSums = new long[runs];
      try (IndexOutput out = dir.createOutput("bytes", IOContext.DEFAULT)) {
        for (int i = 0; i < FILE_BYTES; i++) {
          byte b = (byte) random.nextInt(256);
          out.writeByte(b);
          byteSums[i / RUN] += b;
        }
      }
      vintSums = new long[runs];
      vintStarts = new long[runs];
      try (IndexOutput out = dir.createOutput("vints", IOContext.DEFAULT)) {
        int run = 0;
        vintStarts[0] = 0;
        while (run < runs) {
          long at = out.getFilePointer();
          if (at >= (long) (run + 1) * RUN) {
            run++;
            if (run == runs) {
              break;
            }
            vintStarts[run] = at;
          }
          int v = random.nextInt(1 << (1 + random.nextInt(28)));
          out.writeVInt(v);
          vintSums[run] += v;
        }
        for (int i = 0; i < RUN; i++) {
          out.writeVInt(1); // padding so the last run can be read whole
        }
      }
      bytes = dir.openInput("bytes", IOContext.DEFAULT);
      vints = dir.openInput("vints", IOContext.DEFAULT);

      docLengths = new int[DOCS];
      try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig().setUseCompoundFile(false))) {
        StringBuilder text = new StringBuilder();
        for (int d = 0; d < DOCS; d++) {
          text.setLength(0);
          int words = 50 + random.nextInt(250);
          for (int i = 0; i < words; i++) {
            text.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
          }
          Document doc = new Document();
          doc.add(new StoredField("id", d));
          doc.add(new TextField("body", text.toString(), Field.Store.YES));
          w.addDocument(doc);
          docLengths[d] = text.length();
        }
        w.forceMerge(1);
      }
      reader = DirectoryReader.open(dir);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      reader.close();
      bytes.close();
      vints.close();
      for (String f : dir.listAll()) {
        dir.deleteFile(f);
      }
      dir.close();
      try (var left = Files.list(path)) { // files the directory wrote at close
        for (Path f : left.toList()) {
          Files.delete(f);
        }
      }
      Files.delete(path);
    }
  }

  /** One thread's clones, stored-fields reader and random generator. */
  @State(Scope.Thread)
  public static class PerThread {
    IndexInput bytes;
    IndexInput vints;
    StoredFields stored;
    SplittableRandom random;

    @Setup(Level.Trial)
    public void open(Shared shared, ThreadParams thread) throws IOException {
      bytes = shared.bytes.clone();
      vints = shared.vints.clone();
      stored = shared.reader.leaves().get(0).reader().storedFields();
      random = new SplittableRandom(0x5EED_0000L + thread.getThreadIndex());
    }
  }

  @Benchmark
  public void readBytes(Shared shared, PerThread t, Blackhole bh) throws IOException {
    int run = t.random.nextInt(shared.byteSums.length);
    IndexInput in = t.bytes;
    in.seek((long) run * RUN);
    long sum = 0;
    for (int i = 0; i < RUN; i++) {
      sum += in.readByte();
    }
    if (sum != shared.byteSums[run]) {
      throw new IllegalStateException(shared.directory + ": wrong bytes in run " + run);
    }
    bh.consume(sum);
  }

  @Benchmark
  public void readVInts(Shared shared, PerThread t, Blackhole bh) throws IOException {
    int run = t.random.nextInt(shared.vintSums.length);
    IndexInput in = t.vints;
    long end = run + 1 < shared.vintStarts.length ? shared.vintStarts[run + 1] : (long) (run + 1) * RUN;
    in.seek(shared.vintStarts[run]);
    long sum = 0;
    while (in.getFilePointer() < end) {
      sum += in.readVInt();
    }
    if (sum != shared.vintSums[run]) {
      throw new IllegalStateException(shared.directory + ": wrong vInts in run " + run);
    }
    bh.consume(sum);
  }

  @Benchmark
  public void storedFields(Shared shared, PerThread t, Blackhole bh) throws IOException {
    for (int i = 0; i < 10; i++) {
      int d = t.random.nextInt(DOCS);
      Document doc = t.stored.document(d);
      if (doc.getField("id").numericValue().intValue() != d || doc.get("body").length() != shared.docLengths[d]) {
        throw new IllegalStateException(shared.directory + ": wrong stored fields for document " + d);
      }
      bh.consume(doc);
    }
  }

  private static final String[] WORDS = {
    "index", "segment", "posting", "term", "query", "score", "vector", "merge", "flush", "commit",
    "reader", "writer", "directory", "mapping", "cache", "block", "page", "memory", "limit", "thread",
    "search", "field", "stored", "document", "offset", "length", "buffer", "slice", "clone", "prefetch",
    "advice", "random", "normal", "sequential", "kernel", "container", "cgroup", "pressure", "refault",
    "lucene", "opensearch", "elasticsearch", "solr", "shard", "replica", "node", "cluster", "disk"
  };
}
