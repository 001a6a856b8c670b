/**
 * The fuzz of the served OpenAPI document, larger than the suite's (`npm run bench:fuzz`): FUZZ_RUNS
 * requests (10,000 unless given) with FUZZ_SEED, against the server on the PostgreSQL server at
 * DATABASE_URL (and its standby at CRM_READ_DATABASE_URL) or else on an embedded PGlite in memory. Prints the answers by status and every one
 * that is a 5xx or not documented; exits non-zero when there is any.
 */
import { prepare, requestsFor, run, tally } from "../support/fuzz.js"
import { startServer } from "../support/server.js"
import { benchStore, url } from "./store.js"

const seed = Number(process.env.FUZZ_SEED ?? 34)
const runs = Number(process.env.FUZZ_RUNS ?? 10_000)

const server = await startServer(benchStore(), { rateLimit: 1_000_000 })
try {
  const { credentials, document } = await prepare(server)
  const requests = requestsFor(document, credentials, { seed, runs, mutate: 4 })
  const started = performance.now()
  const outcomes = await run(server.url, requests)
  const seconds = (performance.now() - started) / 1000
  const broken = outcomes.filter((outcome) => outcome.status >= 500 || outcome.drift !== undefined)
  console.log(
    JSON.stringify({
      store: url === undefined ? "pglite" : "postgres",
      seed,
      requests: outcomes.length,
      seconds: Math.round(seconds * 10) / 10,
      by_status: tally(outcomes),
      broken: broken.length
    })
  )
  for (const { request, status, drift } of broken) {
    console.log(status, request.method, request.target.slice(0, 200), drift?.slice(0, 400) ?? "")
  }
  process.exitCode = broken.length === 0 ? 0 : 1
} finally {
  await server.close()
}
