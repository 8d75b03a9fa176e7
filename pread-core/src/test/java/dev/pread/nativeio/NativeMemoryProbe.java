package dev.pread.nativeio;

/** Test-only view of {@link NativeMemory}'s count of live mappings, for tests in other packages. */
public final class NativeMemoryProbe {
  private NativeMemoryProbe() {}

  /** Mappings made by {@link NativeMemory#mapAnonymous} and not yet unmapped. */
  public static long liveMappings() {
    return NativeMemory.liveMappings();
  }
}
