/**
 * Runs before every test file. `@effect/vitest` 0.30 (the last for Effect 3) gives a `layer(...)`
 * block its methods by writing them onto the one shared `it` (vitest's own), so every `it.effect`
 * registered after that block, in that file or, with workers reused across files, in the next file
 * of the worker, runs on that block's layer: a PGlite file once ran on another file's PostgreSQL
 * layer, which it does not have without DATABASE_URL. Each file starts from the methods the
 * package first gave `it`, kept once per worker. (The package stops writing to `it` in its Effect 4
 * line: Effect-TS/effect-smol#2177.)
 */
import { it } from "@effect/vitest"

const methods = ["effect", "scoped", "live", "scopedLive", "flakyTest", "layer", "prop"] as const
type Methods = Pick<typeof it, (typeof methods)[number]>

const key = Symbol.for("crm.test.effectVitestMethods")
const worker = globalThis as { [key]?: Methods }
worker[key] ??= Object.fromEntries(methods.map((name) => [name, it[name]])) as Methods
Object.assign(it, worker[key])
