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
 * documents, or up to 0.01% of them in an index of more than 100,000, see {@link
 * #lowFrequencyMax}) frequency classes (1, 2 and 2), a two-term AND and a two-term OR of medium
 * terms, a two-word phrase taken from a random document, a range on {@code size} sorted by size, and a KNN query (k = 10) with the
 * vector of a random document's text. Every query fetches the stored fields of its top 10 hits.
 */
final class QueryMix {
  /** One query of the mix, and the recipe it was made from. */
  record Entry(String kind, Query query, Sort sort, List<String> recipe) {}

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
    return fromRecipes(recipes(reader, size, seed));
  }

  /**
   * The queries as text, one list of strings per query: its kind, then its terms or numbers (a
   * KNN query's vector as whole-number components). {@link #fromRecipes} makes the same mix from
   * them without opening the index, as a restarted JVM must before the Directory under test reads
   * anything.
   */
  List<List<String>> recipes() {
    List<List<String>> out = new ArrayList<>(entries.size());
    for (Entry e : entries) {
      out.add(e.recipe());
    }
    return out;
  }

  /** The mix of {@link #recipes}. */
  static QueryMix fromRecipes(List<List<String>> recipes) {
    if (recipes == null || recipes.isEmpty()) {
      throw new IllegalArgumentException("no query recipes");
    }
    List<Entry> entries = new ArrayList<>(recipes.size());
    for (List<String> r : recipes) {
      entries.add(entry(r));
    }
    return new QueryMix(entries);
  }

  private static List<List<String>> recipes(DirectoryReader reader, int size, long seed) throws IOException {
    SplittableRandom random = new SplittableRandom(seed);
    int maxDoc = reader.maxDoc();
    List<String> high = new ArrayList<>();
    List<String> medium = new ArrayList<>();
    List<String> low = new ArrayList<>();
    sampleTerms(reader, maxDoc, random, high, medium, low);
    if (high.isEmpty() || medium.size() < 2 || low.isEmpty()) {
      throw new IllegalStateException("index unfit for the query mix: " + high.size() + " high, "
          + medium.size() + " medium, " + low.size() + " low-frequency terms (low: in 2 to " + lowFrequencyMax(maxDoc)
          + " of its " + maxDoc + " documents)");
    }
    StoredFields stored = reader.storedFields();
    long maxSize = 1;
    for (int i = 0; i < 64; i++) {
      maxSize = Math.max(maxSize, stored.document(random.nextInt(maxDoc)).getField("size").numericValue().longValue());
    }
    List<List<String>> recipes = new ArrayList<>(size);
    try (Analyzer analyzer = new StandardAnalyzer()) {
      while (recipes.size() < size) {
        switch (recipes.size() % 10) {
          case 0 -> recipes.add(List.of("term-high", pick(high, random)));
          case 1, 2 -> recipes.add(List.of("term-medium", pick(medium, random)));
          case 3, 4 -> recipes.add(List.of("term-low", pick(low, random)));
          case 5 -> recipes.add(List.of("and", pick(medium, random), pick(medium, random)));
          case 6 -> recipes.add(List.of("or", pick(medium, random), pick(medium, random)));
          case 7 -> recipes.add(phrase(stored, analyzer, maxDoc, random));
          case 8 -> {
            long lo = random.nextLong(maxSize);
            long hi = lo + 200 + random.nextLong(2000);
            recipes.add(List.of("range", Long.toString(lo), Long.toString(hi)));
          }
          default -> {
            String text = stored.document(random.nextInt(maxDoc)).get("body");
            List<String> r = new ArrayList<>(1 + BenchIndex.DIMS);
            r.add("knn");
            for (float c : BenchIndex.vectorOf(text)) {
              r.add(Integer.toString((int) c)); // whole numbers by construction (see BenchIndex#vectorOf)
            }
            recipes.add(r);
          }
        }
      }
    }
    return recipes;
  }

  /** The query of one recipe; an unknown kind or a wrong number of arguments fails naming the recipe. */
  static Entry entry(List<String> r) {
    String kind = r.isEmpty() ? "" : r.get(0);
    int args = switch (kind) {
      case "term-high", "term-medium", "term-low" -> 1;
      case "and", "or", "phrase", "range" -> 2;
      case "knn" -> BenchIndex.DIMS;
      default -> throw new IllegalArgumentException("unknown query kind in recipe " + r);
    };
    if (r.size() != 1 + args) {
      throw new IllegalArgumentException("recipe " + r + ": " + kind + " takes " + args + " argument(s)");
    }
    return switch (kind) {
      case "and" -> new Entry(kind, bool(BooleanClause.Occur.MUST, r.get(1), r.get(2)), null, r);
      case "or" -> new Entry(kind, bool(BooleanClause.Occur.SHOULD, r.get(1), r.get(2)), null, r);
      case "phrase" -> new Entry(kind, new PhraseQuery("body", r.get(1), r.get(2)), null, r);
      case "range" -> new Entry(kind, LongPoint.newRangeQuery("size", Long.parseLong(r.get(1)), Long.parseLong(r.get(2))),
          new Sort(new SortField("size", SortField.Type.LONG)), r);
      case "knn" -> {
        float[] v = new float[BenchIndex.DIMS];
        for (int i = 0; i < v.length; i++) {
          v[i] = Integer.parseInt(r.get(1 + i));
        }
        yield new Entry(kind, new KnnFloatVectorQuery("vector", v, 10), null, r);
      }
      default -> new Entry(kind, new TermQuery(new Term("body", r.get(1))), null, r);
    };
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

  private static Query bool(BooleanClause.Occur occur, String a, String b) {
    BooleanQuery.Builder q = new BooleanQuery.Builder();
    q.add(new TermQuery(new Term("body", a)), occur);
    q.add(new TermQuery(new Term("body", b)), occur);
    return q.build();
  }

  private static List<String> phrase(StoredFields stored, Analyzer analyzer, int maxDoc, SplittableRandom random)
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
        return tokens.size() >= 2
            ? List.of("phrase", tokens.get(at), tokens.get(at + 1))
            : List.of("phrase", "no", "phrase");
      }
    }
  }

  /**
   * The most documents a low-frequency term is in: 10, or 0.01% of the documents in an index of
   * more than 100,000. The large index is the corpus indexed again with a variation per pass, so a
   * word of a single source file is in about as many documents as there were passes (28 for 3 GiB
   * of the JDK's sources); a fixed bound of 10 would find no rare word there. Always below the medium
   * class's least (0.1%, at least 20).
   */
  static int lowFrequencyMax(int maxDoc) {
    return Math.max(10, maxDoc / 10_000);
  }

  /** Reservoir-samples up to 256 alphabetic terms per frequency class. */
  private static void sampleTerms(DirectoryReader reader, int maxDoc, SplittableRandom random,
      List<String> high, List<String> medium, List<String> low) throws IOException {
    Terms terms = MultiTerms.getTerms(reader, "body");
    if (terms == null) {
      return;
    }
    long[] seen = new long[3];
    int lowMax = lowFrequencyMax(maxDoc);
    TermsEnum te = terms.iterator();
    for (BytesRef t = te.next(); t != null; t = te.next()) {
      int df = te.docFreq();
      int cls;
      if (df >= maxDoc / 10) {
        cls = 0;
      } else if (df >= Math.max(20, maxDoc / 1000) && df <= Math.max(40, maxDoc / 100)) {
        cls = 1;
      } else if (df >= 2 && df <= lowMax) {
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
