import { statements } from "../internal/statements.js"

/**
 * A key's window past about 250 hits (2 kB) was compressed and moved out of its row on every take,
 * and read back by decompressing it: most of what a take cost with a large limit (a take over a
 * window of 500-1,000 hits, 0.29 ms on this PostgreSQL; docs/benchmarks.md, issue 38's fourth
 * pass). Sorted timestamps hardly compress, so the window is now kept uncompressed (EXTERNAL):
 * still moved out of the row when large, but copied, not compressed. 0.11 ms the same take. Rows
 * already compressed are rewritten uncompressed at their next take.
 */
export default statements("ALTER TABLE rate_windows ALTER COLUMN hits SET STORAGE EXTERNAL")
