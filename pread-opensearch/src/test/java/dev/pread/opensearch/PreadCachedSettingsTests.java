package dev.pread.opensearch;

import static dev.pread.opensearch.PreadStoreSettingsTests.assertError;
import static dev.pread.opensearch.PreadStoreSettingsTests.settings;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import dev.pread.cache.BlockCache;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.Test;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.settings.SettingsException;
import org.opensearch.common.settings.SettingsModule;
import org.opensearch.core.common.unit.ByteSizeUnit;
import org.opensearch.core.common.unit.ByteSizeValue;

/**
 * The node settings of store type {@code pread_cached}: defaults, parsing, error messages, the
 * checks across settings, and a node's settings module refusing bad values at start. Plain JUnit:
 * no OpenSearch node, so these also run as root.
 */
public class PreadCachedSettingsTests {
  private static final long GIB = 1L << 30;
  private static final long MIB = 1L << 20;

  @Test
  public void defaults() {
    assertEquals(BlockCache.DEFAULT_BLOCK_SIZE, PreadCachedSettings.BLOCK_SIZE.get(Settings.EMPTY).getBytes());
    assertEquals(16 * 1024, PreadCachedSettings.BLOCK_SIZE.get(Settings.EMPTY).getBytes());
    assertEquals(BlockCache.DEFAULT_PREFETCH_THREADS, (int) PreadCachedSettings.PREFETCH_THREADS.get(Settings.EMPTY));
    // Not set: sized from the container when the cache is built (NodeCacheSizing); -1 bytes here.
    assertEquals("auto", PreadCachedSettings.SIZE.getDefaultRaw(Settings.EMPTY));
    assertEquals(-1, PreadCachedSettings.SIZE.get(Settings.EMPTY).getBytes());
    assertEquals(-1, PreadCachedSettings.SIZE.get(settings("node.store.pread_cached.size", "auto")).getBytes());
  }

  @Test
  public void thisMachinesMemoryIsKnown() {
    assertTrue("physical memory " + PreadCachedSettings.PhysicalMemory.BYTES, PreadCachedSettings.PhysicalMemory.BYTES > 0);
  }

  @Test
  public void validValues() {
    assertEquals(size(512 * MIB), PreadCachedSettings.SIZE.get(settings("node.store.pread_cached.size", "512mb")));
    assertEquals(size(16 * 1024), PreadCachedSettings.SIZE.get(settings("node.store.pread_cached.size", "16kb")));
    for (String blockSize : List.of("4kb", "8kb", "16kb", "64kb", "512kb", "1mb", "32768b")) {
      long bytes = PreadCachedSettings.BLOCK_SIZE.get(settings("node.store.pread_cached.block_size", blockSize)).getBytes();
      assertEquals(blockSize, 1, Long.bitCount(bytes));
    }
    assertEquals(1, (int) PreadCachedSettings.PREFETCH_THREADS.get(settings("node.store.pread_cached.prefetch_threads", "1")));
    assertEquals(256, (int) PreadCachedSettings.PREFETCH_THREADS.get(settings("node.store.pread_cached.prefetch_threads", "256")));
    // A size of exactly one block, with the block size set beside it.
    Settings oneBlock =
        Settings.builder().put("node.store.pread_cached.size", "1mb").put("node.store.pread_cached.block_size", "1mb").build();
    assertEquals(size(MIB), PreadCachedSettings.SIZE.get(oneBlock));
  }

  @Test
  public void sizeErrorsNameTheSettingAndTheValue() {
    String message = assertError(PreadCachedSettings.SIZE, "lots", "not a byte size");
    assertTrue(message, message.startsWith("invalid value [lots] for setting [node.store.pread_cached.size]"));
    assertError(PreadCachedSettings.SIZE, "0", "must be at least 4kb, or auto");
    assertError(PreadCachedSettings.SIZE, "-1", "must be at least 4kb, or auto");
    assertError(PreadCachedSettings.SIZE, "4095b", "must be at least 4kb, or auto");
    assertError(PreadCachedSettings.SIZE, "AUTO", "not a byte size");
    assertError(PreadCachedSettings.SIZE, "10%", "not a byte size");
    // Below one block of the default 16kb.
    assertError(PreadCachedSettings.SIZE, "8kb", "must be at least one block of [node.store.pread_cached.block_size] (16kb)");
  }

  @Test
  public void sizeMustBeBelowPhysicalMemory() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PreadCachedSettings.parseSize("16gb", "node.store.pread_cached.size", 16 * GIB));
    assertEquals(
        "invalid value [16gb] for setting [node.store.pread_cached.size]: must be less than the node's physical memory (16gb)",
        e.getMessage());
    assertEquals(size(16 * GIB - 1), PreadCachedSettings.parseSize((16 * GIB - 1) + "b", "k", 16 * GIB));
    assertEquals("unknown memory: no upper bound", size(64 * GIB), PreadCachedSettings.parseSize("64gb", "k", 0));
    // Through the setting, against this machine's memory.
    assumeTrue(PreadCachedSettings.PhysicalMemory.BYTES > 0);
    assertError(PreadCachedSettings.SIZE, "1024tb", "must be less than the node's physical memory");
  }

  @Test
  public void sizeHoldsAtMost2To27Blocks() {
    PreadCachedSettings.SizeFitsBlocks validator = new PreadCachedSettings.SizeFitsBlocks();
    Map<Setting<?>, Object> fourKb = Map.of(PreadCachedSettings.BLOCK_SIZE, size(4096));
    validator.validate(size(512 * GIB), fourKb);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> validator.validate(size(512 * GIB + 4096), fourKb));
    assertTrue(
        e.getMessage(),
        e.getMessage().contains("for setting [node.store.pread_cached.size]: holds more than 134217728 blocks of"
            + " [node.store.pread_cached.block_size] (4kb); use larger blocks"));
    validator.validate(size(512 * GIB + 4096), Map.of(PreadCachedSettings.BLOCK_SIZE, size(8192)));
    // auto: whole blocks by construction, whatever the block size.
    validator.validate(size(-1), Map.of(PreadCachedSettings.BLOCK_SIZE, size(1 << 20)));
  }

  @Test
  public void blockSizeMustBeAPowerOfTwoFrom4kbTo1mb() {
    String message = assertError(PreadCachedSettings.BLOCK_SIZE, "12kb", "must be a power of two from 4kb to 1mb");
    assertTrue(message, message.startsWith("invalid value [12kb] for setting [node.store.pread_cached.block_size]"));
    for (String bad : List.of("2kb", "3kb", "2mb", "0", "-1", "4097b")) {
      assertError(PreadCachedSettings.BLOCK_SIZE, bad, "must be a power of two from 4kb to 1mb");
    }
    assertError(PreadCachedSettings.BLOCK_SIZE, "big", "not a byte size");
  }

  @Test
  public void prefetchThreadsMustBeAnIntegerFrom1To256() {
    for (String bad : List.of("0", "257", "-1", "many", "1.5", "", "16 ")) {
      assertError(PreadCachedSettings.PREFETCH_THREADS, bad, "must be an integer from 1 to 256");
    }
  }

  @Test
  public void aNodeWithABadValueDoesNotStart() {
    // The check a node runs on its settings at start, with the plugin's settings registered.
    List<Setting<?>> registered = new PreadStorePlugin(Settings.EMPTY).getSettings();
    assertNodeRefuses(registered, "node.store.pread_cached.block_size", "12kb", "must be a power of two from 4kb to 1mb");
    assertNodeRefuses(registered, "node.store.pread_cached.size", "none", "not a byte size");
    assertNodeRefuses(registered, "node.store.pread_cached.prefetch_threads", "0", "must be an integer from 1 to 256");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new SettingsModule(
                Settings.builder().put("node.store.pread_cached.size", "64kb").put("node.store.pread_cached.block_size", "128kb").build(),
                registered,
                List.of(),
                Set.of()));
    assertTrue(e.getMessage(), e.getMessage().contains("invalid value [64kb] for setting [node.store.pread_cached.size]: must be at least one block"));
    SettingsException unknown =
        assertThrows(
            SettingsException.class,
            () -> new SettingsModule(settings("node.store.pread_cached.sise", "1gb"), registered, List.of(), Set.of()));
    assertTrue(unknown.getMessage(), unknown.getMessage().contains("unknown setting [node.store.pread_cached.sise] did you mean any of [node.store.pread_cached.size"));
    // Valid values pass, and the cache settings are node settings only: not accepted per index.
    new SettingsModule(
        Settings.builder().put("node.store.pread_cached.size", "auto").put("node.store.pread_cached.block_size", "1mb").build(),
        registered,
        List.of(),
        Set.of());
    new SettingsModule(
        Settings.builder()
            .put("node.store.pread_cached.size", "64mb")
            .put("node.store.pread_cached.block_size", "8kb")
            .put("node.store.pread_cached.prefetch_threads", "4")
            .build(),
        registered,
        List.of(),
        Set.of());
    SettingsModule module = new SettingsModule(Settings.EMPTY, registered, List.of(), Set.of());
    assertTrue(module.getIndexScopedSettings().get("node.store.pread_cached.size") == null);
    assertTrue(module.getIndexScopedSettings().get("index.store.pread.prefetch") != null);
  }

  private static void assertNodeRefuses(List<Setting<?>> registered, String key, String value, String detail) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new SettingsModule(settings(key, value), registered, List.of(), Set.of()));
    String message = e.getMessage();
    assertTrue(message, message.contains("invalid value [" + value + "] for setting [" + key + "]"));
    assertTrue(message, message.contains(detail));
  }

  private static ByteSizeValue size(long bytes) {
    return new ByteSizeValue(bytes, ByteSizeUnit.BYTES);
  }
}
