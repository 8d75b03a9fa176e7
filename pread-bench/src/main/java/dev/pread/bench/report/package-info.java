/**
 * The results of a run (results.json), the statistics that reduce its rounds, and the Markdown
 * report with its tables and charts.
 */
package dev.pread.bench.report;
