/**
 * The fuzz of the served OpenAPI document (`support/fuzz.ts`) on every store, with a fixed seed:
 * every operation, valid and mutated requests. No answer may be a 5xx or one the document does not
 * list. `FUZZ_SEED` and `FUZZ_RUNS` change the run; `npm run bench:fuzz` runs a larger one.
 */
import { expect, it } from "vitest"
import { prepare, requestsFor, run, tally } from "../support/fuzz.js"
import { onEveryStore } from "../support/suite.js"

const SEED = Number(process.env.FUZZ_SEED ?? 34)
const RUNS = Number(process.env.FUZZ_RUNS ?? 400)

onEveryStore(
  "the fuzz of the served OpenAPI document",
  (server) => {
    it(`answers ${RUNS} generated requests over every operation with documented 2xx and 4xx only`, {
      timeout: 300_000
    }, async () => {
      const { credentials, document } = await prepare(server())
      const outcomes = await run(
        server().url,
        requestsFor(document, credentials, { seed: SEED, runs: RUNS, mutate: 4 })
      )
      const broken = outcomes.filter((outcome) => outcome.status >= 500 || outcome.drift !== undefined)
      expect(
        broken.map(({ request, status, drift }) => ({
          status,
          drift: drift?.slice(0, 600),
          request: `${request.method} ${request.target.slice(0, 200)} ${request.body?.slice(0, 300) ?? ""}`
        }))
      ).toEqual([])
      // The run reaches past validation: some requests succeed and some are refused.
      const counts = tally(outcomes)
      expect(Object.keys(counts).some((status) => Number(status) < 300)).toBe(true)
      expect(counts["422"] ?? 0).toBeGreaterThan(0)
    })
  },
  // Every request spends the one key's budget; the fuzz is not about the rate limit.
  { rateLimit: 1_000_000 }
)
