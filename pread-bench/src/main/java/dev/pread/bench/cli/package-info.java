/**
 * The command line: `./pread bench` and the other picocli commands ({@link
 * dev.pread.bench.cli.Main}), and the progress display.
 */
package dev.pread.bench.cli;
