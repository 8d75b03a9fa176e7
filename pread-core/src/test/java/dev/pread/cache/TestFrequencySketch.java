package dev.pread.cache;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.tests.util.LuceneTestCase;

/** The count-min sketch behind admission: estimates never too low, saturating, halved per period. */
public class TestFrequencySketch extends LuceneTestCase {

  public void testCountsUpToFifteen() {
    FrequencySketch sketch = new FrequencySketch(1024);
    long key = FrequencySketch.key(random().nextLong(), random().nextInt(1 << 20));
    assertEquals(0, sketch.frequency(key));
    for (int i = 1; i <= 20; i++) {
      sketch.increment(key);
      assertEquals("after " + i + " uses", Math.min(i, 15), sketch.frequency(key));
    }
  }

  /** Without a halving in between, an estimate is at least the true count (collisions only add). */
  public void testEstimatesAreNeverLow() {
    int blocks = 1 << 12; // period 40,960 increments: more than this test makes
    FrequencySketch sketch = new FrequencySketch(blocks);
    Random r = new Random(random().nextLong());
    Map<Long, Integer> truth = new HashMap<>();
    long file = r.nextLong();
    int over = 0;
    for (int i = 0; i < 10_000; i++) {
      long key = FrequencySketch.key(file, r.nextInt(blocks));
      truth.merge(key, 1, Integer::sum);
      sketch.increment(key);
    }
    for (Map.Entry<Long, Integer> e : truth.entrySet()) {
      int estimate = sketch.frequency(e.getKey());
      assertTrue(e + " estimated " + estimate, estimate >= Math.min(15, e.getValue()));
      if (estimate > Math.min(15, e.getValue())) {
        over++;
      }
    }
    // 40,000 counter increments over 65,536 counters: few keys share all four with others.
    assertTrue(over + " of " + truth.size() + " keys overestimated", over < truth.size() / 10);
  }

  /** Every ten uses per block, all counters halve: old popularity fades. */
  public void testHalvesEachPeriod() {
    int blocks = 64; // a period of 640 increments
    FrequencySketch sketch = new FrequencySketch(blocks);
    long hot = FrequencySketch.key(1, 0);
    for (int i = 0; i < 12; i++) {
      sketch.increment(hot);
    }
    assertEquals(12, sketch.frequency(hot));
    long before = sketch.total();
    assertEquals(48, before); // four counters each
    for (int i = 1; i < 640 - 12; i++) {
      sketch.increment(FrequencySketch.key(2, i));
    }
    assertTrue("not halved yet: " + sketch.frequency(hot), sketch.frequency(hot) >= 12);
    long full = sketch.total();
    sketch.increment(FrequencySketch.key(2, 640)); // the period's last increment
    int halved = sketch.frequency(hot);
    assertTrue("halved estimate " + halved, halved >= 6 && halved <= 7);
    assertTrue(sketch.total() + " after halving " + full, sketch.total() <= (full + 4) / 2);
  }
}
