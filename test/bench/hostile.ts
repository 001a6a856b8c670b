/**
 * What the worst bodies a client may send cost the server (`npm run bench:hostile`): each body of
 * at most the 1 MiB limit is sent ROUNDS times to `POST /api/v1/contacts` (and the deep one to the
 * admin API), on the PostgreSQL server at DATABASE_URL or else an embedded PGlite in memory. For
 * each: the answer, the median wall time and process CPU of one request (server and client share
 * this process, so CPU includes sending the body), and the longest another client waited for
 * `GET /healthz`, asked every millisecond meanwhile.
 */
import * as StoragePg from "@crm/storage-pg"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { startServer } from "../support/server.js"

const ROUNDS = Number(process.env.ROUNDS ?? 5)
const MIB = 1024 * 1024
const url = process.env.DATABASE_URL

const fill = (unit: string, budget: number) => unit.repeat(Math.floor(budget / unit.length))
const bodies: ReadonlyArray<readonly [string, string]> = [
  ["arrays nested 50,000 deep in custom", `{"first_name":"D","custom":${"[".repeat(50_000)}${"]".repeat(50_000)}}`],
  [
    "arrays nested 500,000 deep (1 MiB)",
    `{"first_name":"D","custom":${"[".repeat(MIB / 2 - 20)}${"]".repeat(MIB / 2 - 20)}}`
  ],
  ["objects nested 170,000 deep (1 MiB)", `{"custom":${'{"a":'.repeat(170_000)}1${"}".repeat(170_000)}}`],
  [
    "100,000 keys in custom",
    `{"first_name":"D","custom":{${Array.from({ length: 100_000 }, (_, i) => `"${i.toString(36)}":0`).join(",")}}}`
  ],
  ["500,000-element array in custom", `{"first_name":"D","custom":{"a":[${fill("0,", MIB - 100)}0]}}`],
  ["a string of 1 MiB in custom", `{"first_name":"D","custom":{"a":"${fill("x", MIB - 100)}"}}`],
  ["a 1 MiB first_name (over its 500)", `{"first_name":"${fill("x", MIB - 100)}"}`],
  ["250,000 escapes in a string", `{"first_name":"D","custom":{"a":"${fill("\\n", MIB - 100)}"}}`],
  ["250,000 \\u escapes of NUL", `{"first_name":"D","custom":{"a":"${fill("\\u0000", MIB - 100)}"}}`],
  ["100,000 strings each with a NUL", `{"custom":{"a":[${Array(100_000).fill('"\\u0000"').join(",")}]}}`]
]

const server = await startServer(
  url === undefined
    ? StoragePg.layerPglite({})
    : StoragePg.layerFor({ url: Option.some(Redacted.make(url)), dataDir: "" }),
  { rateLimit: 1_000_000 }
)

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

try {
  const { key } = await server.tenant()
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
  const rows: Array<Record<string, unknown>> = []
  for (const [name, body] of bodies) {
    const walls: Array<number> = []
    const cpus: Array<number> = []
    let waited = 0
    let status = 0
    let code = ""
    for (let round = 0; round < ROUNDS; round++) {
      let done = false
      // Another client: how long does it wait for an answer while the body is served?
      const probe = (async () => {
        while (!done) {
          const asked = performance.now()
          await fetch(`${server.url}/healthz`).then((answer) => answer.arrayBuffer())
          waited = Math.max(waited, performance.now() - asked)
          await new Promise((resolve) => setTimeout(resolve, 1))
        }
      })()
      const cpu = process.cpuUsage()
      const started = performance.now()
      const answer = await fetch(`${server.url}/api/v1/contacts`, { method: "POST", headers, body })
      const text = await answer.text()
      walls.push(performance.now() - started)
      const used = process.cpuUsage(cpu)
      cpus.push((used.user + used.system) / 1000)
      done = true
      await probe
      status = answer.status
      code = answer.status < 300 ? "" : ((JSON.parse(text) as { error: string; detail: any }).detail?.[0]?.code ?? "")
    }
    rows.push({
      body: name,
      bytes: body.length,
      answer: `${status} ${code}`.trim(),
      wall_ms: Math.round(median(walls) * 10) / 10,
      cpu_ms: Math.round(median(cpus) * 10) / 10,
      longest_wait_other_ms: Math.round(waited * 10) / 10
    })
  }
  console.table(rows)
} finally {
  await server.close()
}
