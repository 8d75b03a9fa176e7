package dev.pread.opensearch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.opensearch.Version;
import org.opensearch.plugins.PluginInfo;

/**
 * The zip {@code mvn package} built: exactly the descriptor and two jars at its top level, a
 * descriptor OpenSearch's own parser accepts for this release, and the plugin class inside. Plain
 * JUnit (no node); it runs after {@code package}, with the integration tests.
 */
public class PluginZipLayoutIT {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void zipHoldsTheDescriptorAndTwoJarsAtTheTop() throws Exception {
    String version = PluginZip.property("pread.plugin.version");
    assertEquals(
        List.of(
            "plugin-descriptor.properties",
            "pread-core-" + version + ".jar",
            "pread-opensearch-" + version + ".jar"),
        PluginZip.entries().stream().sorted().toList());
  }

  @Test
  public void descriptorIsValidForThisOpenSearch() throws Exception {
    Path installed = PluginZip.installInto(tmp.newFolder("plugins").toPath());
    PluginInfo info = PluginInfo.readFromProperties(installed);
    assertEquals(PluginZip.pluginName(), info.getName());
    assertEquals(PluginZip.property("pread.plugin.version"), info.getVersion());
    assertEquals(PluginZip.property("pread.plugin.classname"), info.getClassname());
    assertEquals(PluginZip.property("pread.java.version"), info.getJavaVersion());
    assertTrue(info.getDescription(), info.getDescription().contains("pread"));
    assertEquals(PluginZip.property("pread.opensearch.version"), Version.CURRENT.toString());
    assertTrue(
        "descriptor accepts OpenSearch " + Version.CURRENT + ": " + info.getOpenSearchVersionRangesString(),
        info.getOpenSearchVersionRanges().stream().allMatch(range -> range.isSatisfiedBy(Version.CURRENT)));
    assertFalse("no security policy is needed (see docs/opensearch.md)", Files.exists(installed.resolve("plugin-security.policy")));
  }

  @Test
  public void jarsHoldThePluginAndTheDirectoryButNoLucene() throws Exception {
    Path installed = PluginZip.installInto(tmp.newFolder("plugins").toPath());
    String version = PluginZip.property("pread.plugin.version");
    String pluginClass = PluginZip.property("pread.plugin.classname").replace('.', '/') + ".class";
    try (JarFile plugin = new JarFile(installed.resolve("pread-opensearch-" + version + ".jar").toFile());
        JarFile core = new JarFile(installed.resolve("pread-core-" + version + ".jar").toFile())) {
      assertNotNull(pluginClass, plugin.getEntry(pluginClass));
      assertNotNull(core.getEntry("dev/pread/store/PreadDirectory.class"));
      for (JarFile jar : List.of(plugin, core)) {
        assertTrue(
            jar.getName() + " must not carry Lucene or OpenSearch classes",
            jar.stream().noneMatch(e -> e.getName().startsWith("org/apache/lucene/") || e.getName().startsWith("org/opensearch/")));
      }
    }
  }
}
