#!/usr/bin/env -S node --max-semi-space-size=32 --heap-growing-percent=50
// Runs the built command line (`dist/cli.js`, made by `npm run build`, which `npm install` runs
// too). Development and tests run the TypeScript sources through tsx instead; this file never does.
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { load } from "./codeCache.js"

// V8 lets the old generation grow to several times what survived the last full collection
// (up to a heap limit of about 4 GB on a large machine). Under load most of what a request
// allocates dies within the request but outlives two young collections, so the heap filled with
// garbage between rare full collections: hundreds of MB resident for about 35 MB alive. Growing
// by at most the live size keeps it within about twice what is alive (150-160 MB under load). A
// quarter, tried first, kept RSS lower but ran three times as many full collections: 11-16 % more
// CPU per page of events. The factor is read at every collection, so it can be set here. A flag
// given on the command line or in NODE_OPTIONS wins.
//
// `--max-semi-space-size=32` cannot be set from here: V8 sizes the young generation when it makes
// the heap. The first line gives it (and the growing factor below) when this file runs as a
// command (`npx crm serve`, `./bin/crm.js`); `npm start` and the Docker image give both to node
// explicitly; `node bin/crm.js` runs without them. Twice the default young generation
// lets a list or a page of events finish between two young collections: promoted instead, each
// one's rows and strings filled the old generation, and the full collections that followed held
// the event loop, the p99 of those pages at 1.6-1.8x the bare server's. Once little is promoted, the
// old generation can grow by half what is alive (`--heap-growing-percent=50`, also npm start's) and
// RSS under load stays near 175-190 MB (docs/benchmarks.md, seventh pass).
const given = `${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`
if (!/heap[-_]growing[-_]percent/.test(given)) setFlagsFromString("--heap-growing-percent=100")

// V8 allocates straight into the old generation what an allocation site made that mostly survived
// a young collection while the young generation was at its largest, which it is under load. With
// 64 requests in flight, sites that allocate a request's own objects qualify: most of those are
// alive at any given moment, and all die a few milliseconds later. Pretenured, they filled the old
// generation in 4-5 s instead of a minute, and each full collection held every request in flight:
// in about one run in three, p99 rose 25-50 ms on every route on PGlite (docs/benchmarks.md, ninth
// pass). Without it, they die young like the rest; what truly lives long is promoted once.
if (!/allocation[-_]site[-_]pretenuring/.test(given)) setFlagsFromString("--no-allocation-site-pretenuring")

// The embedded store, PGlite, is PostgreSQL compiled to WebAssembly. V8 compiles it with its
// baseline compiler (Liftoff) and then again with TurboFan, function by function as they get hot:
// the second copy cost 50-70 MB resident and 0.4-0.6 s of every start, for 1-8 % more requests per
// second on PGlite (docs/benchmarks.md, fifth pass). An embedded store is chosen for a small
// footprint, so the baseline code is kept. On a PostgreSQL server nothing here is WebAssembly.
if (!/liftoff/.test(given)) setFlagsFromString("--liftoff-only")

const built = fileURLToPath(new URL("../dist/cli.js", import.meta.url))
if (!existsSync(built)) {
  process.stderr.write(
    "crm: the server is not built (examples/server/dist/cli.js is missing).\n" +
      "Run `npm run build` in the repository root (npm install runs it too), then try again.\n"
  )
  process.exit(1)
}
// pg asks, as it loads, whether it runs on Cloudflare Workers: without a `navigator` (node 20 has
// none; 21 and later do) it makes a `Response`, and node 20 loads its whole fetch implementation
// (undici) to make one: 60-70 ms of every start, for nothing the server uses then. A `navigator`
// that names node answers pg first (pg is then cached for the bundle's `require` of it); it is gone
// again before anything else runs.
if (!("navigator" in globalThis)) {
  globalThis.navigator = { userAgent: `Node.js/${process.versions.node}` }
  try {
    await import("pg")
  } finally {
    delete globalThis.navigator
  }
}
// Compiled with V8's code cache, which the flags above must precede: V8 refuses a cache made under
// other flags. `crm serve`, whose start it is for, makes it (see src/cli.ts for the test).
const argv = process.argv.slice(2)
const { main } = load(built, { write: argv.length === 1 && argv[0] === "serve" })
main(argv)
