package dev.pread.store;

/** Reads a system property that must be {@code true} or {@code false}. */
final class BooleanProperty {
  private BooleanProperty() {}

  /**
   * The value of system property {@code name}, ignoring case and surrounding blanks, or {@code
   * defaultValue} if it is not set.
   *
   * @throws IllegalArgumentException naming the property and the value if it is neither true nor
   *     false
   */
  static boolean read(String name, boolean defaultValue) {
    String value = System.getProperty(name, Boolean.toString(defaultValue)).trim();
    if (value.equalsIgnoreCase("true")) {
      return true;
    }
    if (value.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException("system property " + name + " must be true or false (got \"" + value + "\")");
  }
}
