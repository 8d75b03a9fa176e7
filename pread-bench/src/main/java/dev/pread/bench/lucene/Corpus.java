package dev.pread.bench.lucene;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The text the Lucene-level benchmark indexes: one document per Java source file of the running
 * JDK's {@code lib/src.zip} (about 15,000 files, 213 MB in JDK 25), read in the zip's order. Where
 * the JDK has no src.zip, a generated corpus stands in: documents of Zipf-distributed words from a
 * synthetic vocabulary of 50,000, with lines and identifiers, seeded so every run gets the same
 * text. The report names which one was used.
 */
public final class Corpus {
  /** One source document. */
  record Doc(String path, String text) {}

  private final Path srcZip;

  private Corpus(Path srcZip) {
    this.srcZip = srcZip;
  }

  /** The JDK's src.zip when there is one, else the generated corpus. */
  public static Corpus detect() {
    Path zip = Path.of(System.getProperty("java.home"), "lib", "src.zip");
    return new Corpus(Files.isRegularFile(zip) ? zip : null);
  }

  public static Corpus generated() {
    return new Corpus(null);
  }

  /** Whether this is the generated corpus (the JDK has no src.zip, or it was asked for). */
  boolean isGenerated() {
    return srcZip == null;
  }

  /** A short name for the report and for the index folder. */
  String name() {
    return srcZip != null ? "jdk" + Runtime.version().feature() + "-src" : "generated";
  }

  String describe() {
    return srcZip != null
        ? "the JDK's " + srcZip + " (one document per .java file)"
        : "generated text (no src.zip in this JDK): Zipf-distributed words over a 50,000-word synthetic vocabulary, seeded";
  }

  /**
   * Feeds the documents of one pass over the corpus to {@code sink}, in order, until it returns
   * false.
   *
   * @return true if the pass went through every document, false if the sink ended it
   */
  boolean forEach(Predicate<Doc> sink) throws IOException {
    if (srcZip == null) {
      return generate(sink, 15_000);
    }
    try (ZipFile zip = new ZipFile(srcZip.toFile())) {
      Enumeration<? extends ZipEntry> entries = zip.entries();
      while (entries.hasMoreElements()) {
        ZipEntry e = entries.nextElement();
        if (e.isDirectory() || !e.getName().endsWith(".java")) {
          continue;
        }
        try (InputStream in = zip.getInputStream(e)) {
          if (!sink.test(new Doc(e.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8)))) {
            return false;
          }
        }
      }
    }
    return true;
  }

  /**
   * The corpus's first documents, in order, up to {@code chars} characters of text in all (at least
   * one document): a bounded set to index again, held in memory, so that a load reads no corpus.
   */
  List<Doc> first(long chars) throws IOException {
    if (chars <= 0) {
      throw new IllegalArgumentException("chars must be positive, got " + chars);
    }
    List<Doc> docs = new ArrayList<>();
    long[] total = {0};
    forEach(doc -> {
      docs.add(doc);
      total[0] += doc.text().length();
      return total[0] < chars;
    });
    if (docs.isEmpty()) {
      throw new IllegalStateException("the corpus has no documents: " + describe());
    }
    return docs;
  }

  private static boolean generate(Predicate<Doc> sink, int docs) {
    SplittableRandom random = new SplittableRandom(0xC0_FFEE);
    int vocabulary = 50_000;
    // Zipf(1) by inverse transform over the harmonic numbers.
    double[] cumulative = new double[vocabulary];
    double sum = 0;
    for (int i = 0; i < vocabulary; i++) {
      sum += 1.0 / (i + 1);
      cumulative[i] = sum;
    }
    StringBuilder sb = new StringBuilder();
    for (int d = 0; d < docs; d++) {
      sb.setLength(0);
      int words = 200 + random.nextInt(4000);
      for (int w = 0; w < words; w++) {
        double u = random.nextDouble() * sum;
        int lo = 0;
        int hi = vocabulary - 1;
        while (lo < hi) {
          int mid = (lo + hi) >>> 1;
          if (cumulative[mid] < u) lo = mid + 1; else hi = mid;
        }
        sb.append(word(lo)).append(w % 12 == 11 ? '\n' : ' ');
      }
      if (!sink.test(new Doc("generated/doc" + d + ".txt", sb.toString()))) {
        return false;
      }
    }
    return true;
  }

  /** A pronounceable, distinct word for a vocabulary rank. */
  static String word(int rank) {
    String consonants = "bcdfghklmnprstvz";
    String vowels = "aeiou";
    StringBuilder w = new StringBuilder();
    int n = rank + 1;
    do {
      w.append(consonants.charAt(n % 16)).append(vowels.charAt((n / 16) % 5));
      n /= 80;
    } while (n > 0);
    return w.toString();
  }
}
