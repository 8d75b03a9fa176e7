/**
 * The JMH benchmarks (`./pread jmh`): random reads through every strategy, and whole-file
 * sequential reads and writes through several file APIs.
 */
package dev.pread.bench.jmh;
