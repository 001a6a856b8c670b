/**
 * Programs of the workspace run as child processes, built from the TypeScript sources when a test
 * file first asks for them: bundled as the shipped build bundles them (examples/server's
 * `bundle`: the workspace packages from their sources, PGlite, pg and pdfkit left to
 * node_modules), without minifying, source maps or the shipped build's PGlite template.
 *
 * Each child used to run the sources through tsx, which compiles and loads every module of the
 * kernel again in each process: 3-4 s before the program's first line, most of the child-process
 * tests' time. A bundle costs about a second once per file and starts in a fraction of one.
 */
import { mkdtempSync } from "node:fs"
import { join, resolve } from "node:path"
import { build } from "tsup"
import { inject } from "vitest"
import { bundle } from "../../examples/server/tsup.config.js"

const root = resolve(import.meta.dirname, "../..")

/**
 * Builds `entry` (names to source files, relative to `dir`, as in a tsup config) into a new
 * directory of its own and returns the path of each built entry.
 */
export const bundled = async <Name extends string>(
  dir: string,
  entry: Record<Name, string>
): Promise<Record<Name, string>> => {
  // The run's directory (globalSetup.ts), inside the repository so that what a bundle leaves to
  // node_modules resolves from it.
  const outDir = mkdtempSync(join(inject("bundles"), "bundle-"))
  const base = resolve(root, dir)
  const files = Object.fromEntries(Object.entries<string>(entry).map(([name, file]) => [name, resolve(base, file)]))
  await build({ ...bundle(base, files), outDir, sourcemap: false, minifyWhitespace: false, config: false })
  return Object.fromEntries(Object.keys(entry).map((name) => [name, join(outDir, `${name}.js`)])) as Record<
    Name,
    string
  >
}
