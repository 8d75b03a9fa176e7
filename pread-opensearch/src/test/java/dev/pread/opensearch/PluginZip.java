package dev.pread.opensearch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/** The plugin zip the build made (failsafe passes its path and what the descriptor must say). */
final class PluginZip {
  private PluginZip() {}

  static String property(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isEmpty()) {
      throw new IllegalStateException("system property " + name + " is not set (the failsafe configuration sets it)");
    }
    return value;
  }

  static Path path() {
    return Path.of(property("pread.plugin.zip"));
  }

  static String pluginName() {
    return property("pread.plugin.name");
  }

  /** The zip's entry names, in order. */
  static List<String> entries() throws IOException {
    List<String> names = new ArrayList<>();
    try (ZipFile zip = new ZipFile(path().toFile())) {
      for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
        names.add(e.nextElement().getName());
      }
    }
    return names;
  }

  /**
   * Unpacks the zip into {@code pluginsDir/<plugin name>}, as {@code bin/opensearch-plugin
   * install} does, and returns that directory.
   */
  static Path installInto(Path pluginsDir) throws IOException {
    Path target = pluginsDir.resolve(pluginName());
    Files.createDirectories(target);
    try (ZipFile zip = new ZipFile(path().toFile())) {
      for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
        ZipEntry entry = e.nextElement();
        Path out = target.resolve(entry.getName()).normalize();
        if (!out.startsWith(target)) {
          throw new IOException("zip entry outside the plugin directory: " + entry.getName());
        }
        if (entry.isDirectory()) {
          Files.createDirectories(out);
        } else {
          Files.createDirectories(out.getParent());
          try (InputStream in = zip.getInputStream(entry)) {
            Files.copy(in, out);
          }
        }
      }
    }
    return target;
  }
}
