package dev.pread.opensearch;

import static org.junit.Assert.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.bulk.BulkResponse;
import org.opensearch.action.get.GetResponse;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.search.SearchHit;
import org.opensearch.search.sort.SortOrder;
import org.opensearch.transport.client.Client;

/**
 * Documents generated from their number, and queries whose expected hits follow from the same
 * numbers, so a search is checked against what the index must contain, not only against an earlier
 * search. Uses OpenSearch classes only (no plugin class), so that a test with the plugin installed
 * from its zip can use it too.
 */
final class TestDocs {
  static final String MAPPING =
      """
      {"properties": {
        "n":    {"type": "integer"},
        "tag":  {"type": "keyword"},
        "body": {"type": "text"}
      }}""";

  private TestDocs() {}

  static String id(int n) {
    return "d" + n;
  }

  static Map<String, Object> source(int n) {
    Map<String, Object> source = new HashMap<>();
    source.put("n", n);
    source.put("tag", "t" + (n % 10));
    StringBuilder body = new StringBuilder();
    if (n % 3 == 0) {
      body.append("alpha ");
    }
    if (n % 5 == 0) {
      body.append("beta ");
    }
    if (n % 7 == 0) {
      body.append("the quick fox ");
    } else if (n % 7 == 1) {
      body.append("the fox quick ");
    }
    // Some bulk for the stored fields, unique per document.
    for (int i = 0; i < 8; i++) {
      body.append("w").append(Integer.toString(n * 31 + i, 36)).append(' ');
    }
    source.put("body", body.toString().trim());
    return source;
  }

  /** Indexes documents [from, to) with bulk requests of 500. */
  static void index(Client client, String index, int from, int to) {
    for (int start = from; start < to; start += 500) {
      BulkRequestBuilder bulk = client.prepareBulk();
      for (int n = start; n < Math.min(to, start + 500); n++) {
        bulk.add(client.prepareIndex(index).setId(id(n)).setSource(source(n)));
      }
      BulkResponse response = bulk.get();
      if (response.hasFailures()) {
        throw new AssertionError(response.buildFailureMessage());
      }
    }
  }

  /** Deletes documents [from, to) with one bulk request. */
  static void delete(Client client, String index, int from, int to) {
    BulkRequestBuilder bulk = client.prepareBulk();
    for (int n = from; n < to; n++) {
      bulk.add(client.prepareDelete(index, id(n)));
    }
    BulkResponse response = bulk.get();
    if (response.hasFailures()) {
      throw new AssertionError(response.buildFailureMessage());
    }
  }

  /** The queries, by name, with the documents each must match. */
  static Map<String, Map.Entry<QueryBuilder, IntPredicate>> queries() {
    Map<String, Map.Entry<QueryBuilder, IntPredicate>> queries = new LinkedHashMap<>();
    queries.put("match_all", Map.entry(QueryBuilders.matchAllQuery(), n -> true));
    queries.put("term tag:t3", Map.entry(QueryBuilders.termQuery("tag", "t3"), n -> n % 10 == 3));
    queries.put("range n:[100,599]", Map.entry(QueryBuilders.rangeQuery("n").gte(100).lte(599), n -> n >= 100 && n <= 599));
    queries.put("match body:alpha", Map.entry(QueryBuilders.matchQuery("body", "alpha"), n -> n % 3 == 0));
    queries.put(
        "bool beta, n>=500",
        Map.entry(
            QueryBuilders.boolQuery().must(QueryBuilders.matchQuery("body", "beta")).filter(QueryBuilders.rangeQuery("n").gte(500)),
            n -> n % 5 == 0 && n >= 500));
    queries.put("phrase 'quick fox'", Map.entry(QueryBuilders.matchPhraseQuery("body", "quick fox"), n -> n % 7 == 0));
    return queries;
  }

  /** Each query's hits: their ids in order of n. {@code preference} may be null. */
  static Map<String, List<String>> search(Client client, String index, String preference) {
    Map<String, List<String>> result = new LinkedHashMap<>();
    for (var query : queries().entrySet()) {
      var request = client.prepareSearch(index).setQuery(query.getValue().getKey()).setSize(10_000).addSort("n", SortOrder.ASC);
      if (preference != null) {
        request.setPreference(preference);
      }
      SearchResponse response = request.get();
      assertEquals(query.getKey() + ": failed shards", 0, response.getFailedShards());
      List<String> ids = new ArrayList<>();
      for (SearchHit hit : response.getHits().getHits()) {
        ids.add(hit.getId());
      }
      assertEquals(query.getKey() + ": total hits", ids.size(), response.getHits().getTotalHits().value());
      result.put(query.getKey(), ids);
    }
    return result;
  }

  /** What {@link #search} must return when the index holds exactly the documents in {@code live}. */
  static Map<String, List<String>> expected(IntStream live) {
    int[] numbers = live.sorted().toArray();
    Map<String, List<String>> result = new LinkedHashMap<>();
    for (var query : queries().entrySet()) {
      List<String> ids = new ArrayList<>();
      for (int n : numbers) {
        if (query.getValue().getValue().test(n)) {
          ids.add(id(n));
        }
      }
      result.put(query.getKey(), ids);
    }
    return result;
  }

  /** Searches and compares every query's hits with those {@code live} implies. */
  static Map<String, List<String>> assertSearches(Client client, String index, String preference, IntStream live) {
    Map<String, List<String>> actual = search(client, index, preference);
    Map<String, List<String>> expected = expected(live);
    for (String query : expected.keySet()) {
      assertEquals("hits of " + query + (preference == null ? "" : " with preference " + preference), expected.get(query), actual.get(query));
    }
    return actual;
  }

  /** Reads documents back by id from the stored fields (not the translog) and compares them. */
  static void assertStoredDocuments(Client client, String index, int... numbers) {
    for (int n : numbers) {
      GetResponse get = client.prepareGet(index, id(n)).setRealtime(false).get();
      assertEquals(id(n) + " exists", true, get.isExists());
      assertEquals(source(n), get.getSourceAsMap());
    }
  }
}
