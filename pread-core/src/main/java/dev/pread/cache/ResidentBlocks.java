package dev.pread.cache;

import java.nio.file.Path;
import java.util.BitSet;

/**
 * Which blocks of one file open through a {@link BlockCache} held data when {@link
 * BlockCache#residentBlocks(Path)} looked: block {@code i} covers bytes {@code [i * blockSize, (i +
 * 1) * blockSize)} of the file (the last one ends at {@code size}).
 *
 * @param path the absolute path the file was opened with
 * @param size the file's size when it was opened
 * @param blockSize the cache's block size
 * @param blocks the blocks that held data; a copy, the caller's to keep
 */
public record ResidentBlocks(Path path, long size, int blockSize, BitSet blocks) {}
