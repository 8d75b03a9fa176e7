package dev.pread.opensearch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import dev.pread.store.PreadDirectory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.ReadAdvice;
import org.junit.Test;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Settings;

/**
 * The settings' parsing, defaults and error messages, and what the plugin registers. Plain JUnit:
 * no OpenSearch node, so these also run as root.
 */
public class PreadStoreSettingsTests {

  @Test
  public void defaults() {
    assertEquals(PreadDirectory.DEFAULT_BUFFER_SIZE, PreadStoreSettings.BUFFER_SIZE.get(Settings.EMPTY).getBytes());
    assertEquals(ReadAdviceMode.CONTEXT, PreadStoreSettings.READ_ADVICE.get(Settings.EMPTY));
    assertTrue(PreadStoreSettings.PREFETCH.get(Settings.EMPTY));
  }

  @Test
  public void validValues() {
    assertEquals(64, bufferSize("64b"));
    assertEquals(4096, bufferSize("4kb"));
    assertEquals(65536, bufferSize("64kb"));
    assertEquals(1 << 20, bufferSize("1mb"));
    for (ReadAdviceMode mode : ReadAdviceMode.values()) {
      assertSame(mode, PreadStoreSettings.READ_ADVICE.get(settings("index.store.pread.read_advice", mode.settingValue())));
    }
    assertFalse(PreadStoreSettings.PREFETCH.get(settings("index.store.pread.prefetch", "false")));
    assertTrue(PreadStoreSettings.PREFETCH.get(settings("index.store.pread.prefetch", "true")));
  }

  @Test
  public void bufferSizeErrorsNameTheSettingAndTheValue() {
    String message = assertError(PreadStoreSettings.BUFFER_SIZE, "63b", "must be between 64b and 1mb");
    assertTrue(message, message.startsWith("invalid value [63b] for setting [index.store.pread.buffer_size]"));
    assertError(PreadStoreSettings.BUFFER_SIZE, "0", "must be between 64b and 1mb");
    assertError(PreadStoreSettings.BUFFER_SIZE, "-1", "must be between 64b and 1mb");
    assertError(PreadStoreSettings.BUFFER_SIZE, "1025kb", "must be between 64b and 1mb");
    assertError(PreadStoreSettings.BUFFER_SIZE, "2gb", "must be between 64b and 1mb");
    assertError(PreadStoreSettings.BUFFER_SIZE, "lots", "not a byte size");
    assertError(PreadStoreSettings.BUFFER_SIZE, "big", "not a byte size");
    assertError(PreadStoreSettings.BUFFER_SIZE, "16 kilobytes", "not a byte size");
  }

  @Test
  public void readAdviceErrorListsTheChoices() {
    String message = assertError(PreadStoreSettings.READ_ADVICE, "willneed", "must be one of context, normal, random, sequential");
    assertTrue(message, message.startsWith("invalid value [willneed] for setting [index.store.pread.read_advice]"));
    assertError(PreadStoreSettings.READ_ADVICE, "RANDOM", "must be one of");
    assertError(PreadStoreSettings.READ_ADVICE, "", "must be one of");
  }

  @Test
  public void prefetchAcceptsOnlyTrueAndFalse() {
    assertError(PreadStoreSettings.PREFETCH, "yes", "must be true or false");
    assertError(PreadStoreSettings.PREFETCH, "on", "must be true or false");
    assertError(PreadStoreSettings.PREFETCH, "TRUE", "must be true or false");
  }

  @Test
  public void readAdviceModesMapToLuceneAdvice() {
    assertSame(PreadDirectory.ADVISE_BY_CONTEXT, ReadAdviceMode.CONTEXT.function());
    assertEquals(Optional.of(ReadAdvice.RANDOM), ReadAdviceMode.RANDOM.function().apply("_0.cfs", IOContext.DEFAULT));
    assertEquals(Optional.of(ReadAdvice.SEQUENTIAL), ReadAdviceMode.SEQUENTIAL.function().apply("_0.cfs", IOContext.DEFAULT));
    assertEquals(Optional.of(ReadAdvice.NORMAL), ReadAdviceMode.NORMAL.function().apply("_0.cfs", IOContext.READONCE));
  }

  @Test
  public void pluginRegistersThreeStoreTypesAndTheirSettings() throws Exception {
    try (PreadStorePlugin plugin = new PreadStorePlugin(Settings.EMPTY)) {
      Map<String, ?> factories = plugin.getDirectoryFactories();
      assertEquals(List.of("pread", "pread_plain", "pread_cached"), List.copyOf(factories.keySet()));
      assertTrue(factories.get("pread") instanceof AdaptiveDirectoryFactory);
      assertTrue(factories.get("pread_plain") instanceof PreadDirectoryFactory);
      assertTrue(factories.get("pread_cached") instanceof CachedPreadDirectoryFactory);
      List<Setting<?>> settings = plugin.getSettings();
      // Each once: pread_cached shares index.store.pread.prefetch with pread_plain; pread has none.
      List<Setting<?>> expected = new ArrayList<>(PreadStoreSettings.all());
      expected.addAll(PreadCachedSettings.all());
      assertEquals(expected, settings);
      for (Setting<?> setting : PreadStoreSettings.all()) {
        assertTrue(setting.getKey(), setting.getKey().startsWith(PreadStoreSettings.PREFIX));
        assertTrue(setting.getKey() + " is an index setting", setting.hasIndexScope());
        assertTrue(setting.getKey() + " may be a node default", setting.hasNodeScope());
        assertFalse(setting.getKey() + " is read when a shard opens", setting.isDynamic());
      }
      for (Setting<?> setting : PreadCachedSettings.all()) {
        assertTrue(setting.getKey(), setting.getKey().startsWith(PreadCachedSettings.PREFIX));
        assertFalse(setting.getKey() + " is a node setting only", setting.hasIndexScope());
        assertTrue(setting.getKey() + " is a node setting", setting.hasNodeScope());
        assertFalse(setting.getKey() + " is read when the cache is built", setting.isDynamic());
      }
      assertTrue("registering builds no cache", plugin.blockCache().current().isEmpty());
    }
  }

  @Test
  public void eachStoreTypeIgnoresTheSettingsItDoesNotRead() throws Exception {
    Settings all =
        Settings.builder()
            .put("index.store.pread.buffer_size", "4kb")
            .put("index.store.pread.read_advice", "random")
            .put("index.store.pread.prefetch", false)
            .build();
    try (PreadStorePlugin plugin = new PreadStorePlugin(Settings.EMPTY)) {
      Map<String, ShardDirectoryFactory> factories = new java.util.HashMap<>();
      plugin.getDirectoryFactories().forEach((name, factory) -> factories.put(name, (ShardDirectoryFactory) factory));
      assertEquals(
          List.of("index.store.pread.buffer_size", "index.store.pread.read_advice", "index.store.pread.prefetch"),
          factories.get("pread").ignoredSettings(all));
      assertEquals(List.of(), factories.get("pread_plain").ignoredSettings(all));
      assertEquals(
          List.of("index.store.pread.buffer_size", "index.store.pread.read_advice"),
          factories.get("pread_cached").ignoredSettings(all));
      assertEquals(List.of("index.store.pread.prefetch"), factories.get("pread").ignoredSettings(settings("index.store.pread.prefetch", "true")));
      for (ShardDirectoryFactory factory : factories.values()) {
        assertEquals("nothing set, nothing ignored", List.of(), factory.ignoredSettings(Settings.EMPTY));
      }
    }
  }

  private static long bufferSize(String value) {
    return PreadStoreSettings.BUFFER_SIZE.get(settings("index.store.pread.buffer_size", value)).getBytes();
  }

  static Settings settings(String key, String value) {
    return Settings.builder().put(key, value).build();
  }

  /** The setting refuses {@code value} with a message naming both and containing {@code detail}. */
  static String assertError(Setting<?> setting, String value, String detail) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> setting.get(settings(setting.getKey(), value)));
    String message = e.getMessage();
    assertTrue(message, message.contains("[" + setting.getKey() + "]"));
    assertTrue(message, message.contains("[" + value + "]"));
    assertTrue(message, message.contains(detail));
    return message;
  }
}
