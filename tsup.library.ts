/**
 * How every package under `packages/` builds for npm: ESM for Node 20 with `.d.ts` declarations in
 * its own `dist/`, one file per entry of its `exports` map. Dependencies and peer dependencies stay
 * imports (tsup leaves out what the package.json lists); the workspace's `@crm/*` packages are
 * dependencies, so each is shipped once, by its own package.
 *
 * Code splitting is on so that entries of one package (`@crm/core` and `@crm/core/testing`) share
 * one copy of each module: two copies of an error class would make `instanceof` lie.
 */
import type { Options } from "tsup"

export const library = (entry: Record<string, string>): Options => ({
  entry,
  format: ["esm"],
  platform: "node",
  target: "node20",
  outDir: "dist",
  clean: true,
  splitting: true,
  dts: true,
  sourcemap: false,
  silent: true
})
