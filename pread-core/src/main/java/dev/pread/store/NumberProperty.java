package dev.pread.store;

/** Parses the value of a system property that must be a whole number within a range. */
final class NumberProperty {
  private NumberProperty() {}

  /**
   * {@code value}, the value of system property {@code name}, as a number from {@code min} to
   * {@code max}, ignoring surrounding blanks.
   *
   * @param what what the value must be, in words, for the message ("a number of seconds, 0 or more")
   * @throws IllegalArgumentException naming the property, {@code what} and the value otherwise
   */
  static long parse(String name, String value, long min, long max, String what) {
    try {
      long n = Long.parseLong(value.trim());
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new IllegalArgumentException("system property " + name + " must be " + what + " (got \"" + value + "\")");
  }
}
