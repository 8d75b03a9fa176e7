package dev.pread.bench.lucene;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.util.BytesRef;

/**
 * The seeded query mix of the Lucene-level benchmark, built from the index itself so that every
 * Directory runs the same queries. Per ten queries: term queries on {@code body} from the high
 * (in at least 10% of documents), medium (0.1% to 1%, at least 20 documents) and low (2 to 10
 * documents) frequency
 * classes (1, 2 and 2), a two-term AND and a two-term OR of medium terms, a two-word phrase taken
 * from a random document, a range on {@code size} sorted by size, and a KNN query (k = 10) with the
 * vector of a random document's text. Every query fetches the stored fields of its top 10 hits.
 */
final class QueryMix {
  /** One query of the mix. */
  record Entry(String kind, Query query, Sort sort) {}

  private final List<Entry> entries;

  private QueryMix(List<Entry> entries) {
    this.entries = entries;
  }

  int size() {
    return entries.size();
  }

  Entry get(int i) {
    return entries.get(i);
  }

  /** A fingerprint of the queries, so that two processes can check that they built the same mix. */
  long fingerprint() {
    long h = 17;
    for (Entry e : entries) {
      h = h * 31 + e.kind().hashCode();
      h = h * 31 + e.query().toString().hashCode();
    }
    return h;
  }

  /** Builds {@code size} queries from {@code reader} with {@code seed}. */
  static QueryMix build(DirectoryReader reader, int size, long seed) throws IOException {
    SplittableRandom random = new SplittableRandom(seed);
    int maxDoc = reader.maxDoc();
    List<String> high = new ArrayList<>();
    List<String> medium = new ArrayList<>();
    List<String> low = new ArrayList<>();
    sampleTerms(reader, maxDoc, random, high, medium, low);
    if (high.isEmpty() || medium.size() < 2 || low.isEmpty()) {
      throw new IllegalStateException("index too small for the query mix: " + high.size() + " high, "
          + medium.size() + " medium, " + low.size() + " low-frequency terms");
    }
    StoredFields stored = reader.storedFields();
    long maxSize = 1;
    for (int i = 0; i < 64; i++) {
      maxSize = Math.max(maxSize, stored.document(random.nextInt(maxDoc)).getField("size").numericValue().longValue());
    }
    List<Entry> entries = new ArrayList<>(size);
    try (Analyzer analyzer = new StandardAnalyzer()) {
      while (entries.size() < size) {
        switch (entries.size() % 10) {
          case 0 -> entries.add(term("term-high", pick(high, random)));
          case 1, 2 -> entries.add(term("term-medium", pick(medium, random)));
          case 3, 4 -> entries.add(term("term-low", pick(low, random)));
          case 5 -> entries.add(bool("and", BooleanClause.Occur.MUST, pick(medium, random), pick(medium, random)));
          case 6 -> entries.add(bool("or", BooleanClause.Occur.SHOULD, pick(medium, random), pick(medium, random)));
          case 7 -> entries.add(phrase(stored, analyzer, maxDoc, random));
          case 8 -> {
            long lo = random.nextLong(maxSize);
            long hi = lo + 200 + random.nextLong(2000);
            entries.add(new Entry("range", LongPoint.newRangeQuery("size", lo, hi),
                new Sort(new SortField("size", SortField.Type.LONG))));
          }
          default -> {
            String text = stored.document(random.nextInt(maxDoc)).get("body");
            entries.add(new Entry("knn", new KnnFloatVectorQuery("vector", BenchIndex.vectorOf(text), 10), null));
          }
        }
      }
    }
    return new QueryMix(entries);
  }

  /**
   * Runs entry {@code i} on {@code searcher}: top 10 (by score, or by the entry's sort), then the
   * stored fields of every hit. Returns a checksum of the hits' ids, scores, total count and stored
   * fields, which must be the same on every Directory.
   */
  long run(IndexSearcher searcher, int i) throws IOException {
    Entry e = entries.get(i);
    TopDocs top = e.sort() == null ? searcher.search(e.query(), 10) : searcher.search(e.query(), 10, e.sort());
    long h = 0x9E3779B97F4A7C15L * (i + 1) + top.totalHits.value();
    StoredFields stored = searcher.getIndexReader().storedFields();
    for (ScoreDoc sd : top.scoreDocs) {
      h = h * 31 + sd.doc;
      h = h * 31 + (e.sort() == null ? Float.floatToIntBits(sd.score) : 0);
      Document doc = stored.document(sd.doc);
      for (IndexableField f : doc.getFields()) {
        h = h * 31 + f.name().hashCode();
        h = h * 31 + (f.stringValue() != null ? f.stringValue().hashCode() : f.numericValue().hashCode());
      }
    }
    return h;
  }

  private static <T> T pick(List<T> list, SplittableRandom random) {
    return list.get(random.nextInt(list.size()));
  }

  private static Entry term(String kind, String t) {
    return new Entry(kind, new TermQuery(new Term("body", t)), null);
  }

  private static Entry bool(String kind, BooleanClause.Occur occur, String a, String b) {
    BooleanQuery.Builder q = new BooleanQuery.Builder();
    q.add(new TermQuery(new Term("body", a)), occur);
    q.add(new TermQuery(new Term("body", b)), occur);
    return new Entry(kind, q.build(), null);
  }

  private static Entry phrase(StoredFields stored, Analyzer analyzer, int maxDoc, SplittableRandom random)
      throws IOException {
    for (int attempt = 0; ; attempt++) {
      String text = stored.document(random.nextInt(maxDoc)).get("body");
      List<String> tokens = new ArrayList<>();
      try (TokenStream ts = analyzer.tokenStream("body", text.substring(0, Math.min(text.length(), 20_000)))) {
        CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
        ts.reset();
        while (ts.incrementToken() && tokens.size() < 2000) {
          tokens.add(term.toString());
        }
        ts.end();
      }
      if (tokens.size() >= 2 || attempt > 100) {
        int at = tokens.size() >= 2 ? random.nextInt(tokens.size() - 1) : 0;
        PhraseQuery q = tokens.size() >= 2
            ? new PhraseQuery("body", tokens.get(at), tokens.get(at + 1))
            : new PhraseQuery("body", "no", "phrase");
        return new Entry("phrase", q, null);
      }
    }
  }

  /** Reservoir-samples up to 256 alphabetic terms per frequency class. */
  private static void sampleTerms(DirectoryReader reader, int maxDoc, SplittableRandom random,
      List<String> high, List<String> medium, List<String> low) throws IOException {
    Terms terms = MultiTerms.getTerms(reader, "body");
    if (terms == null) {
      return;
    }
    long[] seen = new long[3];
    TermsEnum te = terms.iterator();
    for (BytesRef t = te.next(); t != null; t = te.next()) {
      int df = te.docFreq();
      int cls;
      if (df >= maxDoc / 10) {
        cls = 0;
      } else if (df >= Math.max(20, maxDoc / 1000) && df <= Math.max(40, maxDoc / 100)) {
        cls = 1;
      } else if (df >= 2 && df <= 10) {
        cls = 2;
      } else {
        continue;
      }
      String s = t.utf8ToString();
      if (s.length() < 3 || !s.chars().allMatch(Character::isLetter)) {
        continue;
      }
      List<String> list = cls == 0 ? high : cls == 1 ? medium : low;
      long n = ++seen[cls];
      if (list.size() < 256) {
        list.add(s);
      } else {
        long j = random.nextLong(n);
        if (j < 256) {
          list.set((int) j, s);
        }
      }
    }
  }
}
