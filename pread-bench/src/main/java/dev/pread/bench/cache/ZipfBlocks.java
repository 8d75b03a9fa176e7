package dev.pread.bench.cache;

import dev.pread.bench.raw.OffsetPattern;
import dev.pread.bench.report.Format;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Zipf-skewed reads: the file is cut into blocks aligned to the read size (a 16 KiB read, 16 KiB
 * blocks); the block of popularity rank k (1 = hottest) is read with probability proportional to
 * 1/k^s. Ranks are spread over the file by a fixed permutation ({@code block = (k - 1) * m mod n},
 * m coprime to n, near n times the golden ratio), so hot blocks are not neighbours and no readahead
 * or block size catches several by luck. Sampling is Hörmann and Derflinger's rejection-inversion
 * method (constant time, no table).
 *
 * <p>With s = 1.0 over the 262,144 16 KiB blocks of a 4 GiB file, the hottest block takes 7.7% of
 * reads and a cache of an eighth of the blocks could at best serve about 84% of them: a skew like
 * that of a search index's term dictionary and postings, which keeps a cache useful but leaves a
 * long tail of misses.
 */
public final class ZipfBlocks implements OffsetPattern {
  /** The default exponent of the pressure sections. */
  public static final double DEFAULT_EXPONENT = 1.0;

  private final double exponent;

  public ZipfBlocks(double exponent) {
    if (!(exponent > 0) || exponent > 10) {
      throw new IllegalArgumentException("Zipf exponent must be in (0, 10]: " + exponent);
    }
    this.exponent = exponent;
  }

  double exponent() {
    return exponent;
  }

  String describe(int readSize, long fileSize) {
    long n = fileSize / unit(readSize);
    return String.format(Locale.ROOT, "Zipf s=%.2f over the %,d %s blocks of the file (the hottest takes %.1f%%)",
        exponent, n, Format.bytes(unit(readSize)), 100 * probabilityOfRank(1, n, exponent));
  }

  private static long unit(int readSize) {
    return (readSize + 4095L) / 4096 * 4096;
  }

  @Override
  public Generator forThread(int readSize, long fileSize, long seed) {
    long unit = unit(readSize);
    long n = fileSize / unit;
    if (n >= 1L << 31) {
      throw new IllegalArgumentException("a file of " + fileSize + " bytes has too many " + unit + "-byte blocks");
    }
    if (n < 2) {
      throw new IllegalArgumentException("a file of " + fileSize + " bytes has fewer than two " + unit + "-byte blocks");
    }
    Sampler sampler = new Sampler(n, exponent);
    long m = multiplier(n);
    SplittableRandom random = new SplittableRandom(seed);
    return () -> blockOfRank(sampler.sample(random), n, m) * unit;
  }

  /** The block the rank {@code k} (1-based) is placed at: a bijection of [1, n] onto [0, n). */
  static long blockOfRank(long k, long n, long m) {
    return Math.floorMod(Math.multiplyExact(k - 1, m), n); // exact: both factors are below n < 2^31
  }

  /** A multiplier coprime to {@code n}, near n / golden ratio, so consecutive ranks land far apart. */
  static long multiplier(long n) {
    long m = Math.max(1, (long) (n * 0.6180339887498949));
    while (gcd(m, n) != 1) {
      m++;
    }
    return m;
  }

  private static long gcd(long a, long b) {
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }

  /** The exact probability of rank {@code k} among {@code n} (for the report and tests). */
  static double probabilityOfRank(long k, long n, double s) {
    double h = 0;
    for (long i = n; i >= 1; i--) {
      h += Math.pow(i, -s);
    }
    return Math.pow(k, -s) / h;
  }

  /**
   * Rejection-inversion sampling of ranks 1..n with P(k) proportional to k^-s (W. Hörmann, G.
   * Derflinger, "Rejection-inversion to generate variates from monotone discrete distributions",
   * ACM TOMACS 6(3), 1996). Immutable: the state is the caller's random generator.
   */
  static final class Sampler {
    private final long n;
    private final double s;
    private final double hIntegralX1;
    private final double hIntegralN;
    private final double sThreshold;

    Sampler(long n, double s) {
      this.n = n;
      this.s = s;
      this.hIntegralX1 = hIntegral(1.5) - 1;
      this.hIntegralN = hIntegral(n + 0.5);
      this.sThreshold = 2 - hIntegralInverse(hIntegral(2.5) - h(2));
    }

    long sample(SplittableRandom random) {
      while (true) {
        double u = hIntegralN + random.nextDouble() * (hIntegralX1 - hIntegralN);
        double x = hIntegralInverse(u);
        long k = (long) (x + 0.5);
        if (k < 1) {
          k = 1;
        } else if (k > n) {
          k = n;
        }
        if (k - x <= sThreshold || u >= hIntegral(k + 0.5) - h(k)) {
          return k;
        }
      }
    }

    private double h(double x) {
      return Math.exp(-s * Math.log(x));
    }

    private double hIntegral(double x) {
      double logX = Math.log(x);
      return helper2((1 - s) * logX) * logX;
    }

    private double hIntegralInverse(double x) {
      double t = x * (1 - s);
      if (t < -1) {
        t = -1; // rounding can push it below; -1 maps to rank infinity's bound
      }
      return Math.exp(helper1(t) * x);
    }

    /** log1p(x) / x, continuous at 0. */
    private static double helper1(double x) {
      return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
    }

    /** expm1(x) / x, continuous at 0. */
    private static double helper2(double x) {
      return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + x * (1.0 / 3) * (1 + 0.25 * x));
    }
  }
}
