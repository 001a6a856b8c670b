/**
 * What the worst bodies a client may send cost the server (`npm run bench:hostile`): each body of
 * at most the 1 MiB limit is sent ROUNDS times to `POST /api/v1/contacts` (a key), `POST
 * /auth/v1/sign-in` (nobody signed in) and `PUT /settings/v1/organisations/{id}/settings` (an
 * owner's session with its CSRF token), `POST /oauth/register` and `/oauth/token` (the MCP
 * endpoint's authorization server) and `POST /api/mcp` with a bearer that is no key; then paths,
 * queries and cookies holding NUL, lone surrogates and 100,000 characters go to the session's
 * routes and the authorization server's; on the PostgreSQL server at
 * DATABASE_URL or else an embedded PGlite in memory. For
 * each: the answer, the median wall time and process CPU of one request (server and client share
 * this process, so CPU includes sending the body), and the longest another client waited for
 * `GET /healthz`, asked every millisecond meanwhile.
 */
import { withOwner } from "../support/people.js"
import { startServer } from "../support/server.js"
import { benchStore } from "./store.js"

const ROUNDS = Number(process.env.ROUNDS ?? 5)
const MIB = 1024 * 1024

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

const server = await startServer(benchStore(), { rateLimit: 1_000_000 })

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** How long another client waits for `GET /healthz` while `send` is answered, and what `send` got. */
const measured = async (send: () => Promise<Response>) => {
  let done = false
  let waited = 0
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
  const answer = await send()
  const text = await answer.text()
  const wall = performance.now() - started
  const used = process.cpuUsage(cpu)
  done = true
  await probe
  let code = ""
  if (answer.status >= 300 && (answer.headers.get("content-type") ?? "").includes("json")) {
    const error = JSON.parse(text) as { error: string; detail: any }
    code = Array.isArray(error.detail) ? (error.detail[0]?.code ?? error.error) : error.error
  }
  return { status: answer.status, code, wall, cpu: (used.user + used.system) / 1000, waited }
}

try {
  const { key } = await server.tenant()
  const { organisation, person } = await withOwner(server, "Hostile")
  const json = { "content-type": "application/json" }
  const session = { ...json, cookie: person.cookie()!, "x-csrf-token": person.csrfToken()! }
  const long = "x".repeat(100_000)
  const targets: ReadonlyArray<readonly [string, string, string, Record<string, string>]> = [
    ["POST", "/api/v1/contacts", "key", { ...json, authorization: `Bearer ${key}` }],
    ["POST", "/auth/v1/sign-in", "none", json],
    ["PUT", `/settings/v1/organisations/${organisation.id}/settings`, "session", session],
    // The MCP endpoint's authorization server: a registration, a token request, and a bearer that
    // is no key (asked of the authorization server) on the endpoint.
    ["POST", "/oauth/register", "none", json],
    ["POST", "/oauth/token", "none", { "content-type": "application/x-www-form-urlencoded" }],
    [
      "POST",
      "/api/mcp",
      "token",
      { ...json, accept: "application/json, text/event-stream", authorization: `Bearer ${long.slice(0, 4_000)}` }
    ]
  ]
  const rows: Array<Record<string, unknown>> = []
  let worst = 0
  for (const [method, path, caller, headers] of targets) {
    for (const [name, body] of bodies) {
      const runs = []
      for (let round = 0; round < ROUNDS; round++) {
        runs.push(await measured(() => fetch(`${server.url}${path}`, { method, headers, body })))
      }
      const last = runs[runs.length - 1]!
      worst = Math.max(worst, last.status)
      rows.push({
        route: `${method} ${path.replace(organisation.id, "{id}")} (${caller})`,
        body: name,
        answer: `${last.status} ${last.code}`.trim(),
        wall_ms: Math.round(median(runs.map((run) => run.wall)) * 10) / 10,
        cpu_ms: Math.round(median(runs.map((run) => run.cpu)) * 10) / 10,
        longest_wait_other_ms: Math.round(Math.max(...runs.map((run) => run.waited)) * 10) / 10
      })
    }
  }
  console.table(rows)

  // The session's routes by what else a client controls: the path, the query and the cookie.
  const settings = `/settings/v1/organisations/${organisation.id}`
  const requests: ReadonlyArray<readonly [string, string, Record<string, string>]> = [
    ["POST", "/auth/v1/invitations/%00/accept", json],
    ["POST", "/auth/v1/invitations/%ED%A0%80/accept", json],
    ["POST", `/auth/v1/invitations/${"a".repeat(4_000)}/accept`, json],
    ["GET", "/settings/v1/organisations/%00/audit", session],
    ["GET", `${settings}/audit?limit=%00&offset=%ED%A0%80`, session],
    ["GET", `${settings}/users?${"a=1&".repeat(20_000)}`, session],
    ["DELETE", `${settings}/keys/%ED%A0%80`, session],
    ["DELETE", `${settings}/apps/%00`, session],
    ["GET", `${settings}/apps?limit=%ED%A0%80&${"offset=%00&".repeat(200)}`, session],
    ["DELETE", `/auth/v1/sessions/${long}`, session],
    ["GET", "/auth/v1/session", { cookie: `crm_session=${"%00".repeat(1_000)}; crm_session=${long.slice(0, 7_000)}` }],
    ["GET", "/auth/v1/session", { cookie: `${";=".repeat(3_000)}crm_session` }],
    ["GET", "/oauth/consent/%00", session],
    [
      "POST",
      `/oauth/consent/${long.slice(0, 7_000)}`,
      { ...session, "content-type": "application/x-www-form-urlencoded" }
    ],
    ["GET", `/oauth/authorize?client_id=%00&redirect_uri=%ED%A0%80&${"scope=read&".repeat(500)}`, {}],
    ["GET", `/oauth/authorize?${"a=1&".repeat(1_500)}`, {}],
    [
      "POST",
      "/oauth/revoke",
      { "content-type": "application/x-www-form-urlencoded", cookie: `_interaction=${long.slice(0, 7_000)}` }
    ],
    ["GET", "/.well-known/oauth-protected-resource%00", {}]
  ]
  const paths: Array<Record<string, unknown>> = []
  for (const [method, target, headers] of requests) {
    const run = await measured(() =>
      fetch(`${server.url}${target}`, { method, headers, ...(method === "POST" ? { body: "{}" } : {}) })
    )
    worst = Math.max(worst, run.status)
    paths.push({
      request: `${method} ${target.replace(organisation.id, "{id}").slice(0, 70)}`,
      answer: `${run.status} ${run.code}`.trim(),
      wall_ms: Math.round(run.wall * 10) / 10,
      longest_wait_other_ms: Math.round(run.waited * 10) / 10
    })
  }
  console.table(paths)
  if (worst >= 500) {
    console.error("a hostile request was answered 5xx")
    process.exitCode = 1
  }
} finally {
  await server.close()
}
