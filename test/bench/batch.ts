/**
 * `npm run bench:batch`: what a batch saves (issue 16) on PostgreSQL. Our built server (`npm run
 * build` first; BENCH_BIN names another copy of its bin) on a fresh `crm_bench_<random>` database,
 * one organisation, requests rotating over BENCH_KEYS (128) keys. The same number of contacts (BENCH_BATCH_CONTACTS, 3000) is written four ways,
 * each by BENCH_BATCH_CLIENTS (8) clients in a closed loop, in this order:
 *   single    one `POST /contacts` per contact
 *   batch     `POST /contacts/batch` with BENCH_BATCH_SIZE (100) items
 *   upsert    `PUT /contacts/by-email/{email}` per contact, every address new (all created)
 *   batch-up  `POST /contacts/batch` with `"mode": "upsert"`, the addresses of `single` (all unchanged)
 * For each: contacts per second, the server's and PostgreSQL's CPU per contact, and the p50/p99 of a
 * request. Method and figures: docs/benchmarks.md, "Batches and upserts (issue 16)".
 *
 * Env: BENCH_BATCH_CONTACTS, BENCH_BATCH_SIZE, BENCH_BATCH_CLIENTS, BENCH_BIN, BENCH_DATABASE_URL.
 */
import {
  CPU_COUNT,
  call,
  createDatabase,
  createKeys,
  createOrganisation,
  envNumber,
  expectStatus,
  findings,
  fixed,
  KEYS,
  PIN,
  percentile,
  postgresCpuMs,
  problems,
  procCpuMs,
  runBench,
  startOurs,
  tables
} from "./harness.js"

const CONTACTS = envNumber("BENCH_BATCH_CONTACTS", 3000)
const SIZE = envNumber("BENCH_BATCH_SIZE", 100)
const CLIENTS = envNumber("BENCH_BATCH_CLIENTS", 8)
const BIN = process.env.BENCH_BIN ?? "examples/server/bin/crm.js"

interface Way {
  readonly name: string
  /** How many requests the contacts take, and the request for the n-th. */
  readonly requests: number
  readonly send: (n: number) => Promise<{ readonly status: number }>
  readonly expected: number
}

const measure = async (pid: number, way: Way) => {
  const latencies: Array<number> = []
  let next = 0
  const serverBefore = procCpuMs(pid)
  const pgBefore = postgresCpuMs()
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < way.requests) {
        const n = next++
        const at = performance.now()
        const reply = await way.send(n)
        latencies.push(performance.now() - at)
        if (reply.status !== way.expected) problems.push(`${way.name}: a request answered ${reply.status}`)
      }
    })
  )
  const wallMs = performance.now() - started
  const serverMs = procCpuMs(pid) - serverBefore
  const pgMs = postgresCpuMs() - pgBefore
  return {
    name: way.name,
    requests: way.requests,
    contactsPerSecond: (CONTACTS / wallMs) * 1000,
    serverUsPerContact: (serverMs * 1000) / CONTACTS,
    pgUsPerContact: (pgMs * 1000) / CONTACTS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99)
  }
}

const main = async (): Promise<number> => {
  console.log(
    `batch bench: ${CONTACTS} contacts each way, batches of ${SIZE}, ${CLIENTS} clients, ${CPU_COUNT} CPUs` +
      (PIN ? "; server pinned to core 1, this process to core 0" : "")
  )
  const database = await createDatabase()
  const server = await startOurs("postgres", { DATABASE_URL: database.url }, false, BIN)
  const base = server.base
  const pid = server.child.proc.pid!
  const organisation = await createOrganisation(base, "batch")
  // The requests rotate over KEYS keys, fresh for each way, as the main bench's rounds do: the
  // limiter rewrites a key's row of the last minute's timestamps on each request, which would
  // otherwise grow through the run and charge each way for the ones before it.
  let keys = await createKeys(base, organisation, KEYS)
  let turn = 0
  const key = () => keys[turn++ % keys.length]!
  const email = (way: string, n: number) => `${way}-${n}@bench.example`
  const items = (way: string, batch: number) =>
    Array.from({ length: SIZE }, (_, i) => ({ first_name: "Bench", email: email(way, batch * SIZE + i) }))

  // Warm the server's paths (JIT, prepared statements) on addresses the measured runs never use.
  for (let i = 0; i < 3; i++) {
    expectStatus(await call(base, "POST", "/api/v1/contacts/batch", key(), { items: items("warm", i) }), 201, "warm-up")
    expectStatus(await call(base, "POST", "/api/v1/contacts", key(), { email: email("warm-one", i) }), 201, "warm-up")
    expectStatus(
      await call(base, "PUT", `/api/v1/contacts/by-email/${email("warm-put", i)}`, key(), {}),
      201,
      "warm-up"
    )
  }

  const ways: ReadonlyArray<Way> = [
    {
      name: "POST /contacts, one per contact",
      requests: CONTACTS,
      expected: 201,
      send: (n) => call(base, "POST", "/api/v1/contacts", key(), { first_name: "Bench", email: email("single", n) })
    },
    {
      name: `POST /contacts/batch, ${SIZE} a request`,
      requests: Math.ceil(CONTACTS / SIZE),
      expected: 201,
      send: (n) => call(base, "POST", "/api/v1/contacts/batch", key(), { items: items("batch", n) })
    },
    {
      name: "PUT /contacts/by-email/{email}, creating",
      requests: CONTACTS,
      expected: 201,
      send: (n) => call(base, "PUT", `/api/v1/contacts/by-email/${email("upsert", n)}`, key(), { first_name: "Bench" })
    },
    {
      name: `POST /contacts/batch upsert, ${SIZE} unchanged a request`,
      requests: Math.ceil(CONTACTS / SIZE),
      expected: 201,
      send: (n) =>
        call(base, "POST", "/api/v1/contacts/batch", key(), {
          mode: "upsert",
          items: items("single", n)
        })
    }
  ]
  const results = []
  for (const way of ways) {
    keys = await createKeys(base, organisation, KEYS)
    const result = await measure(pid, way)
    results.push(result)
    console.log(`  ${result.name}: ${fixed(result.contactsPerSecond, 0)} contacts/s`)
  }
  const { text, markdown } = tables(
    ["way", "requests", "contacts/s", "server µs/contact", "PG µs/contact", "p50 ms", "p99 ms"],
    results.map((r) => [
      r.name,
      String(r.requests),
      fixed(r.contactsPerSecond, 0),
      fixed(r.serverUsPerContact, 0),
      fixed(r.pgUsPerContact, 0),
      fixed(r.p50, 1),
      fixed(r.p99, 1)
    ]),
    1
  )
  console.log(`\n${text}\n\n${markdown}\n`)
  return findings()
}

void runBench(main)
