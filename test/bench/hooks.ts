/**
 * `npm run bench:hooks`: webhook delivery (issue 13) on PostgreSQL. Our built server (`npm run
 * build` first; BENCH_BIN names another copy of its bin) on a fresh `crm_bench_<random>` database;
 * in this process, 100 healthy receivers (answer 200 at once) and 5 hanging ones (never answer, so
 * every attempt runs into the server's 10 s timeout), each the target of a hook on
 * `contact.created` of one organisation. Method and figures: docs/benchmarks.md, "Webhook delivery
 * (issue 13)". Three phases:
 *   quiet   another organisation, no hooks: contacts created at BENCH_HOOKS_RATE per second for
 *           BENCH_HOOKS_SECONDS while a probe reads a contact at BENCH_HOOKS_PROBE_RATE per
 *           second; the API's latency without deliveries.
 *   paced   the same in the organisation with the hooks: the API's latency while the worker
 *           delivers (the hanging hooks still hold their slots: three timeouts each come first),
 *           and per healthy delivery the time from the event's `created_at` to its arrival.
 *   burst   BENCH_HOOKS_BURST contacts created as fast as 8 clients go, then until every healthy
 *           receiver has them all: deliveries per second while a backlog drains.
 * Each healthy receiver checks that its events arrive once each and in order.
 *
 * Env: BENCH_HOOKS_HEALTHY (100), BENCH_HOOKS_HANGING (5; 0 for a run without), BENCH_HOOKS_RATE (2), BENCH_HOOKS_SECONDS
 * (20), BENCH_HOOKS_PROBE_RATE (50), BENCH_HOOKS_BURST (200), BENCH_HOOKS_CONCURRENCY (the server's
 * default, CRM_WEBHOOK_CONCURRENCY), BENCH_BIN (examples/server/bin/crm.js), BENCH_DATABASE_URL.
 */
import { spawnSync } from "node:child_process"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
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
  inBatches,
  onCleanup,
  PIN,
  percentile,
  problems,
  ROOT,
  runBench,
  sleep,
  startOurs,
  tables
} from "./harness.js"

const HEALTHY = envNumber("BENCH_HOOKS_HEALTHY", 100)
// 0 is a run to compare with: the same without the hanging receivers.
const HANGING = process.env.BENCH_HOOKS_HANGING === "0" ? 0 : envNumber("BENCH_HOOKS_HANGING", 5)
const RATE = envNumber("BENCH_HOOKS_RATE", 2)
const SECONDS = envNumber("BENCH_HOOKS_SECONDS", 20)
const PROBE_RATE = envNumber("BENCH_HOOKS_PROBE_RATE", 50)
const BURST = envNumber("BENCH_HOOKS_BURST", 200)
const CONCURRENCY = process.env.BENCH_HOOKS_CONCURRENCY
const BIN = process.env.BENCH_BIN ?? "examples/server/bin/crm.js"
/** How long a phase may take to be delivered in full before the run counts it as a problem. */
const DRAIN_TIMEOUT_MS = 300_000
const HOOKS_PER_KEY = 20

// ---------------------------------------------------------------------------------------------
// Receivers: one server, a path per hook

interface Arrival {
  readonly eventId: bigint
  /** ms from the event's created_at to its arrival here. */
  readonly latencyMs: number
  readonly at: number
}

const arrivals: Array<Array<Arrival>> = Array.from({ length: HEALTHY }, () => [])
let hangingRequests = 0
let arrivedCount = 0
const waiters: Array<{ readonly count: number; readonly resolve: () => void }> = []

const receive = (request: IncomingMessage, response: ServerResponse) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const at = Date.now()
    const [, kind, index] = request.url!.split("/")
    if (kind === "hanging") {
      hangingRequests++
      return
    }
    const envelope = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string; created_at: string }
    arrivals[Number(index)]!.push({ eventId: BigInt(envelope.id), latencyMs: at - Date.parse(envelope.created_at), at })
    arrivedCount++
    for (const waiter of waiters.filter((w) => arrivedCount >= w.count)) waiter.resolve()
    response.writeHead(200).end("ok")
  })
}

const arrived = (count: number, timeoutMs: number): Promise<boolean> =>
  arrivedCount >= count
    ? Promise.resolve(true)
    : Promise.race([
        new Promise<boolean>((resolve) => waiters.push({ count, resolve: () => resolve(true) })),
        sleep(timeoutMs).then(() => false)
      ])

const startReceivers = async (): Promise<string> => {
  const server = createServer(receive)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  onCleanup("receivers", async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

// ---------------------------------------------------------------------------------------------
// Load: requests fired on a schedule (open loop), each timed

const timed = async (f: () => Promise<{ status: number }>, expected: number, into: Array<number>) => {
  const started = performance.now()
  const reply = await f()
  into.push(performance.now() - started)
  if (reply.status !== expected) problems.push(`a measured request answered ${reply.status}, not ${expected}`)
}

/** Calls `f` `rate` times a second for `seconds`, without waiting for the previous call. */
const paced = async (rate: number, seconds: number, f: (i: number) => Promise<void>) => {
  const started = performance.now()
  const calls: Array<Promise<void>> = []
  for (let i = 0; i < rate * seconds; i++) {
    const due = started + (i * 1000) / rate
    const wait = due - performance.now()
    if (wait > 0) await sleep(wait)
    calls.push(f(i))
  }
  await Promise.all(calls)
}

interface ApiFigures {
  readonly create: ReadonlyArray<number>
  readonly read: ReadonlyArray<number>
}

/** Contacts created at RATE while a contact is read at PROBE_RATE, for SECONDS. */
const apiLoad = async (base: string, key: string): Promise<ApiFigures> => {
  const probe = expectStatus(
    await call(base, "POST", "/api/v1/contacts", key, { first_name: "Probe" }),
    201,
    "POST /contacts"
  ).body.id as string
  const create: Array<number> = []
  const read: Array<number> = []
  await Promise.all([
    paced(RATE, SECONDS, (i) =>
      timed(() => call(base, "POST", "/api/v1/contacts", key, { first_name: `Paced ${i}` }), 201, create)
    ),
    paced(PROBE_RATE, SECONDS, () => timed(() => call(base, "GET", `/api/v1/contacts/${probe}`, key), 200, read))
  ])
  return { create, read }
}

// ---------------------------------------------------------------------------------------------

const deliveryFigures = (from: number) => {
  const latencies: Array<number> = []
  let first = Number.POSITIVE_INFINITY
  let last = 0
  let outOfOrder = 0
  let duplicates = 0
  for (const hook of arrivals) {
    const mine = hook.slice(from)
    const seen = new Set<bigint>()
    mine.forEach((arrival, i) => {
      latencies.push(arrival.latencyMs)
      first = Math.min(first, arrival.at)
      last = Math.max(last, arrival.at)
      if (seen.has(arrival.eventId)) duplicates++
      seen.add(arrival.eventId)
      if (i > 0 && arrival.eventId < mine[i - 1]!.eventId) outOfOrder++
    })
  }
  return { latencies, first, last, outOfOrder, duplicates }
}

const main = async (): Promise<number> => {
  if (PIN) spawnSync("taskset", ["-a", "-cp", "0", String(process.pid)], { stdio: "ignore" })
  const git = (args: ReadonlyArray<string>) =>
    spawnSync("git", [...args], { cwd: ROOT, encoding: "utf8" }).stdout?.trim() ?? ""
  const dirty = git(["status", "--porcelain"]).split("\n").filter(Boolean).length
  console.log(
    `bench (hooks): ${new Date().toISOString()}, commit ${git(["rev-parse", "--short", "HEAD"])}` +
      `${dirty > 0 ? ` + ${dirty} uncommitted changes` : ""}, node ${process.version}, ${CPU_COUNT} cores; ` +
      `${HEALTHY} healthy and ${HANGING} hanging receivers, ${RATE} events/s for ${SECONDS} s with reads at ` +
      `${PROBE_RATE}/s, then a burst of ${BURST}; worker concurrency ${CONCURRENCY ?? "default"}` +
      (PIN ? "; server pinned to core 1, this process to core 0" : "")
  )
  const receivers = await startReceivers()
  const database = await createDatabase()
  const server = await startOurs(
    "postgres",
    {
      DATABASE_URL: database.url,
      CRM_WEBHOOK_ALLOW_PRIVATE_TARGETS: "1",
      ...(CONCURRENCY === undefined ? {} : { CRM_WEBHOOK_CONCURRENCY: CONCURRENCY })
    },
    false,
    BIN
  )
  const base = server.base

  const quietOrg = await createOrganisation(base, "quiet")
  const [quietKey] = await createKeys(base, quietOrg, 1)
  const hookedOrg = await createOrganisation(base, "hooked")
  const keys = await createKeys(base, hookedOrg, Math.ceil((HEALTHY + HANGING) / HOOKS_PER_KEY))
  const targets = [
    ...Array.from({ length: HEALTHY }, (_, i) => `${receivers}/healthy/${i}`),
    ...Array.from({ length: HANGING }, (_, i) => `${receivers}/hanging/${i}`)
  ]
  const hookIds = await inBatches(
    targets.length,
    8,
    async (i) =>
      expectStatus(
        await call(base, "POST", "/api/v1/hooks", keys[Math.floor(i / HOOKS_PER_KEY)], {
          target_url: targets[i],
          events: ["contact.created"]
        }),
        201,
        "POST /hooks"
      ).body.id as string
  )

  console.log("quiet: no hooks")
  const quiet = await apiLoad(base, quietKey!)
  console.log("paced: with the hooks")
  const pacedApi = await apiLoad(base, keys[0]!)
  // The probe contact is an event too.
  const pacedEvents = RATE * SECONDS + 1
  const pacedDelivered = await arrived(pacedEvents * HEALTHY, DRAIN_TIMEOUT_MS)
  if (!pacedDelivered) problems.push(`paced: ${arrivedCount} of ${pacedEvents * HEALTHY} healthy deliveries arrived`)
  const pacedFigures = deliveryFigures(0)
  const hangingDuringPaced = hangingRequests

  console.log(`burst: ${BURST} contacts`)
  const burstStarted = Date.now()
  await inBatches(BURST, 8, async (i) => {
    expectStatus(
      await call(base, "POST", "/api/v1/contacts", keys[0], { first_name: `Burst ${i}` }),
      201,
      "POST /contacts"
    )
  })
  const burstEmitted = Date.now()
  const burstDelivered = await arrived((pacedEvents + BURST) * HEALTHY, DRAIN_TIMEOUT_MS)
  if (!burstDelivered)
    problems.push(`burst: ${arrivedCount} of ${(pacedEvents + BURST) * HEALTHY} healthy deliveries arrived`)
  const burstFigures = deliveryFigures(pacedEvents)

  // What the hanging hooks' logs say (every attempt a timeout) and whether their circuits are open.
  const hanging = await Promise.all(
    hookIds.slice(HEALTHY).map(async (id, i) => {
      const key = keys[Math.floor((HEALTHY + i) / HOOKS_PER_KEY)]
      const hook = (await call(base, "GET", `/api/v1/hooks/${id}`, key)).body
      const attempts: Array<{ error: string | null }> = []
      for (let offset = 0, more = true; more; offset += 200) {
        const page = (await call(base, "GET", `/api/v1/hooks/${id}/deliveries?limit=200&offset=${offset}`, key)).body
        for (const delivery of page.data) attempts.push(...delivery.attempts)
        more = page.has_more
      }
      return { paused: hook.paused_until !== null, attempts: attempts.length, errors: attempts.map((a) => a.error) }
    })
  )

  const ms = (values: ReadonlyArray<number>, p: number) => fixed(percentile(values, p), 1)
  const apiRow = (name: string, figures: ApiFigures) => [
    name,
    ms(figures.create, 50),
    ms(figures.create, 99),
    ms(figures.read, 50),
    ms(figures.read, 99),
    String(figures.create.length + figures.read.length)
  ]
  const api = tables(
    ["phase", "POST /contacts p50", "p99", "GET /contacts/{id} p50", "p99", "requests"],
    [apiRow("quiet (no hooks)", quiet), apiRow(`paced (${HEALTHY + HANGING} hooks delivering)`, pacedApi)],
    1
  )
  const delivery = (name: string, figures: ReturnType<typeof deliveryFigures>, from: number) => [
    name,
    String(figures.latencies.length),
    fixed((figures.latencies.length * 1000) / Math.max(1, figures.last - from), 0),
    ms(figures.latencies, 50),
    ms(figures.latencies, 99),
    fixed(Math.max(...figures.latencies), 0),
    String(figures.outOfOrder),
    String(figures.duplicates)
  ]
  const deliveries = tables(
    ["phase", "healthy deliveries", "per s", "emission to arrival p50 ms", "p99 ms", "max ms", "out of order", "twice"],
    [delivery("paced", pacedFigures, pacedFigures.first), delivery("burst", burstFigures, burstStarted)],
    1
  )
  console.log(`\nAPI latency (ms):\n${api.text}\n\nHealthy deliveries:\n${deliveries.text}`)
  console.log(
    `\nburst: ${BURST} contacts emitted in ${((burstEmitted - burstStarted) / 1000).toFixed(1)} s, all ` +
      `${burstFigures.latencies.length} healthy deliveries in ${((burstFigures.last - burstStarted) / 1000).toFixed(1)} s`
  )
  console.log(
    `hanging: ${hangingDuringPaced} requests during the paced phase, ${hangingRequests} in all; per hook ` +
      hanging.map((h) => `${h.attempts} attempts${h.paused ? " (paused)" : ""}`).join(", ") +
      `; errors seen: ${[...new Set(hanging.flatMap((h) => h.errors))].join(" | ")}`
  )
  console.log(`\nmarkdown:\n\n${api.markdown}\n\n${deliveries.markdown}`)
  for (const figures of [pacedFigures, burstFigures]) {
    if (figures.outOfOrder > 0 || figures.duplicates > 0)
      problems.push(`${figures.outOfOrder} out-of-order and ${figures.duplicates} repeated healthy deliveries`)
  }
  return findings()
}

await runBench(main)
