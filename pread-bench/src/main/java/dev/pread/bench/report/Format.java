package dev.pread.bench.report;

import java.util.Locale;

/** Human-readable numbers for tables. */
public final class Format {
  private Format() {}

  public static String bytes(long n) {
    if (n >= 1L << 30 && n % (1L << 30) == 0) return (n >> 30) + " GiB";
    if (n >= 1L << 20 && n % (1L << 20) == 0) return (n >> 20) + " MiB";
    if (n >= 1L << 10 && n % (1L << 10) == 0) return (n >> 10) + " KiB";
    return n + " B";
  }

  /** An approximate size: 141708658 -> "135.1 MiB"; exact multiples as {@link #bytes}. */
  public static String size(long n) {
    if (n < 0) return "?";
    if (n >= 1L << 30) return String.format(Locale.ROOT, "%.2f GiB", n / (double) (1L << 30));
    if (n >= 1L << 20) return String.format(Locale.ROOT, "%.1f MiB", n / (double) (1L << 20));
    if (n >= 1L << 10) return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
    return n + " B";
  }

  /** 1234567 -> "1.23M", 12345 -> "12.3k". */
  public static String rate(double r) {
    if (r >= 1e6) return String.format(Locale.ROOT, "%.2fM", r / 1e6);
    if (r >= 1e4) return String.format(Locale.ROOT, "%.1fk", r / 1e3);
    if (r >= 1e3) return String.format(Locale.ROOT, "%.2fk", r / 1e3);
    return String.format(Locale.ROOT, "%.0f", r);
  }

  public static String ratio(double r) {
    return String.format(Locale.ROOT, "%.2fx", r);
  }

  /** Parses "1g", "512m", "64k", "4096". */
  public static long parseBytes(String s) {
    String t = s.trim().toLowerCase(Locale.ROOT).replace("ib", "").replace("b", "");
    long mult = 1;
    char last = t.charAt(t.length() - 1);
    switch (last) {
      case 'k' -> mult = 1L << 10;
      case 'm' -> mult = 1L << 20;
      case 'g' -> mult = 1L << 30;
      default -> {}
    }
    if (mult != 1) {
      t = t.substring(0, t.length() - 1);
    }
    return Long.parseLong(t.trim()) * mult;
  }
}
