/**
 * The benchmark's baseline: a bare `node:http` + `pg` server answering the three benchmarked
 * routes with the same SQL statements, in the same order, on the same connections pattern, as
 * the CRM server sends per request (copied from packages/storage-pg/src/*.ts and checked against
 * the PostgreSQL statement log), and the same JSON shapes and headers. It runs on a database that
 * the CRM server has already migrated and seeded (keys are created through the CRM admin API).
 *
 * What it leaves out on purpose (that is the CRM stack's own work, and shows in the ratio):
 * Effect's fiber runtime, @effect/platform's request/response objects, @effect/sql's statement
 * compiler, zod validation of bodies, queries and stored settings, the API key checksum check,
 * WebCrypto's async digest. It does not tune anything the CRM server could not: same driver,
 * same pool size, one `pool.query` (acquire, query, release) per statement outside transactions.
 *
 * Env: PORT, HOST (127.0.0.1), DATABASE_URL, POOL_SIZE (10, @effect/sql-pg's default),
 * CRM_RATE_LIMIT (120).
 */
import { createHash, randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"

const PORT = Number(process.env.PORT ?? 3000)
const HOST = process.env.HOST ?? "127.0.0.1"
const DATABASE_URL = process.env.DATABASE_URL
const POOL_SIZE = Number(process.env.POOL_SIZE ?? 10)
const RATE_LIMIT = Number(process.env.CRM_RATE_LIMIT ?? 120)
const RATE_WINDOW_MS = 60_000
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000
const MAX_LIMIT = 200
const JSON_TYPE = "application/json; charset=utf-8"

if (DATABASE_URL === undefined) {
  console.error("baseline: set DATABASE_URL")
  process.exit(2)
}

// Same driver and same type parsers as the CRM server (it passes pg's own `types` registry).
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: POOL_SIZE, application_name: "crm-baseline" })
pool.on("error", (error) => console.error("baseline: idle client error", error))

// ---- The statements, verbatim from packages/storage-pg/src (whitespace aside). ----

// AccessRepository.findKeyByHash
const FIND_KEY = `SELECT k.id, k.organisation_id, k.name, k.hash, k.scopes, k.allowed_ips, k.expires_at,
          k.revoked_at, k.created_at, o.name AS organisation_name, o.settings AS organisation_settings
        FROM api_keys k JOIN organisations o ON o.id = k.organisation_id
        WHERE k.hash = $1`

// RateLimiter.take
const RATE_TAKE = `SELECT admitted, remaining, retry_after_ms
        FROM crm_rate_take($1::text, $2::bigint, $3::integer, $4::bigint, $5::boolean)`

const COLUMNS = "id, first_name, last_name, email, phone, company_id, status, source, custom, created_at, updated_at"

// ContactRepository.get
const CONTACT_GET = `SELECT ${COLUMNS} FROM "contacts"
        WHERE organisation_id = $1::uuid AND archived_at IS NULL AND id = $2::uuid`

// ContactRepository.list with no filter (sql.and of the one live-rows condition adds no parentheses)
const CONTACT_LIST = `SELECT ${COLUMNS} FROM "contacts" WHERE organisation_id = $1::uuid AND archived_at IS NULL
        ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`

// ContactRepository.insert
const CONTACT_INSERT = `INSERT INTO "contacts" (${COLUMNS}, organisation_id) VALUES ($1::uuid, $2, $3, $4, $5,
          $6::uuid, $7, $8, $9::jsonb, $10::timestamptz, $11::timestamptz, $12::uuid)`

// EventLog.append (one event), with the webhook outbox in the same statement
const EVENT_LOCK = `SELECT pg_advisory_xact_lock(hashtextextended($1::text, $2::bigint))`
const EVENT_INSERT = `WITH appended AS (
          INSERT INTO events (organisation_id, event, data, created_at) VALUES ($1::uuid, $2, $3::json, $4::timestamptz)
          RETURNING id, event, data
        )
        INSERT INTO webhook_deliveries (id, organisation_id, hook_id, event_id, event, body, status,
          attempt_count, next_attempt_at, created_at)
        SELECT gen_random_uuid(), h.organisation_id, h.id, e.id, e.event,
          '{"id":"' || e.id || '","event":"' || e.event || '","data":' || e.data::text
            || ',"created_at":"' || $5::text || '"}',
          'pending', 0, $6::timestamptz, $7::timestamptz
        FROM appended e
        JOIN webhook_hooks h ON h.organisation_id = $8::uuid AND h.active
          AND e.event = ANY (h.events)
        JOIN api_keys k ON k.id = h.key_id AND k.revoked_at IS NULL`
const EVENT_LOCK_SEED = "42"

// IdempotencyStore.claim / save
const IDEM_LOCK = `SELECT pg_try_advisory_xact_lock(
          hashtextextended($1::text || ':' || $2::text, $3::bigint)) AS locked`
const IDEM_FIND = `SELECT fingerprint, status, headers, body, created_at FROM idempotency
          WHERE key_id = $1 AND idem_key = $2 AND created_at >= $3::timestamptz`
const IDEM_SAVE = `INSERT INTO idempotency (key_id, idem_key, fingerprint, status, headers, body, created_at)
        VALUES ($1, $2, $3, $4::integer,
          $5::jsonb, $6, $7::timestamptz)
        ON CONFLICT (key_id, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = EXCLUDED.status,
          headers = EXCLUDED.headers, body = EXCLUDED.body, created_at = EXCLUDED.created_at`
const IDEM_LOCK_SEED = "1917"

// ---- Rows to wire shapes (as packages/storage-pg/src/internal/rows.ts does). ----

interface ContactRow {
  readonly id: string
  readonly first_name: string | null
  readonly last_name: string | null
  readonly email: string | null
  readonly phone: string | null
  readonly company_id: string | null
  readonly status: string
  readonly source: string | null
  readonly custom: Record<string, unknown>
  readonly created_at: Date
  readonly updated_at: Date
}

const toContact = (row: ContactRow) => ({
  id: row.id,
  first_name: row.first_name,
  last_name: row.last_name,
  email: row.email,
  phone: row.phone,
  company_id: row.company_id,
  status: row.status,
  source: row.source,
  custom: row.custom,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString()
})

interface KeyRow {
  readonly id: string
  readonly organisation_id: string
  readonly scopes: ReadonlyArray<string>
  readonly allowed_ips: ReadonlyArray<string>
  readonly expires_at: Date | null
  readonly revoked_at: Date | null
}

// ---- HTTP plumbing. ----

class Failure {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: unknown
  ) {}
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const BEARER = /^Bearer\s+(\S+)\s*$/i

const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string>) => {
  res.writeHead(status, { "content-type": JSON_TYPE, "content-length": Buffer.byteLength(body), ...headers })
  res.end(body)
}

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", reject)
  })

const optionalString = (body: Record<string, unknown>, field: string): string | null => {
  const value = body[field]
  if (value === undefined || value === null) return null
  if (typeof value !== "string")
    throw new Failure(422, "validation_failed", [{ path: field, message: "expected a string" }])
  return value
}

const authenticate = async (req: IncomingMessage): Promise<{ key: KeyRow; remaining: number }> => {
  const match = BEARER.exec(req.headers.authorization ?? "")
  if (match === null) throw new Failure(401, "missing_bearer_token", "send Authorization: Bearer <API key>")
  const hash = createHash("sha256").update(match[1]!).digest("hex")
  const { rows } = await pool.query<KeyRow>(FIND_KEY, [hash])
  const key = rows[0]
  if (key === undefined || key.revoked_at !== null)
    throw new Failure(401, "invalid_api_key", "the API key is not valid")
  if (key.expires_at !== null && key.expires_at.getTime() <= Date.now()) {
    throw new Failure(401, "expired_api_key", `the API key expired at ${key.expires_at.toISOString()}`)
  }
  const decision = await pool.query<{ admitted: boolean; remaining: number; retry_after_ms: string }>(RATE_TAKE, [
    key.id,
    Math.floor(Date.now()),
    RATE_LIMIT,
    RATE_WINDOW_MS,
    true
  ])
  const { admitted, remaining } = decision.rows[0]!
  if (!admitted) throw new Failure(429, "rate_limited", `more than ${RATE_LIMIT} requests in a minute`)
  return { key, remaining: Number(remaining) }
}

const requireScope = (key: KeyRow, scope: string) => {
  if (!key.scopes.includes(scope)) throw new Failure(403, "missing_scope", `missing_scope:${scope}`)
}

const getContact = async (key: KeyRow, id: string): Promise<[number, string]> => {
  const { rows } = await pool.query<ContactRow>(CONTACT_GET, [key.organisation_id, id])
  if (rows.length === 0) throw new Failure(404, "not_found", "no such contact")
  return [200, JSON.stringify(toContact(rows[0]!))]
}

const listContacts = async (key: KeyRow, url: URL): Promise<[number, string]> => {
  const limit = Number(url.searchParams.get("limit") ?? 50)
  const offset = Number(url.searchParams.get("offset") ?? 0)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT || !Number.isInteger(offset) || offset < 0) {
    throw new Failure(422, "validation_failed", [{ path: "limit", message: "out of range" }])
  }
  const { rows } = await pool.query<ContactRow>(CONTACT_LIST, [key.organisation_id, limit + 1, offset])
  const page = rows.length > limit ? rows.slice(0, limit) : rows
  return [200, JSON.stringify({ data: page.map(toContact), limit, offset, has_more: rows.length > limit })]
}

const createContact = async (req: IncomingMessage, key: KeyRow, url: URL): Promise<[number, string]> => {
  const raw = await readBody(req)
  let input: unknown
  try {
    input = JSON.parse(raw.toString("utf8"))
  } catch (error) {
    throw new Failure(400, "invalid_json", `the body is not valid JSON: ${(error as Error).message}`)
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new Failure(422, "validation_failed", [{ path: "", message: "expected an object" }])
  }
  const body = input as Record<string, unknown>
  const email = optionalString(body, "email")
  const now = new Date().toISOString()
  const contact = {
    id: randomUUID(),
    first_name: optionalString(body, "first_name"),
    last_name: optionalString(body, "last_name"),
    email: email === null ? null : email.trim().toLowerCase(),
    phone: optionalString(body, "phone"),
    company_id: null as string | null,
    status: "lead",
    source: optionalString(body, "source"),
    custom: {} as Record<string, unknown>,
    created_at: now,
    updated_at: now
  }
  const idempotencyKey = req.headers["idempotency-key"]
  const fingerprint = createHash("sha256")
    .update(`${req.method} ${url.pathname}${url.search}\n`)
    .update(raw)
    .digest("hex")

  const client = await pool.connect()
  let released = false
  try {
    await client.query("BEGIN")
    const claimedAt = Date.now()
    if (typeof idempotencyKey === "string") {
      const lock = await client.query<{ locked: boolean }>(IDEM_LOCK, [key.id, idempotencyKey, IDEM_LOCK_SEED])
      if (!lock.rows[0]!.locked) throw new Failure(409, "idempotency_in_progress", "still being processed")
      const existing = await client.query(IDEM_FIND, [
        key.id,
        idempotencyKey,
        new Date(claimedAt - IDEMPOTENCY_WINDOW_MS).toISOString()
      ])
      if (existing.rows.length > 0)
        throw new Failure(409, "replay_not_benchmarked", "a replay; the benchmark never sends one")
    }
    // Contacts.create runs in tx.run (a savepoint), the insert in its own savepoint (so a unique
    // violation rolls back only that), and EventLog.append in another: @effect/sql names them by
    // depth and does not RELEASE them.
    await client.query("SAVEPOINT effect_sql_1")
    await client.query("SAVEPOINT effect_sql_2")
    await client.query(CONTACT_INSERT, [
      contact.id,
      contact.first_name,
      contact.last_name,
      contact.email,
      contact.phone,
      contact.company_id,
      contact.status,
      contact.source,
      JSON.stringify(contact.custom),
      contact.created_at,
      contact.updated_at,
      key.organisation_id
    ])
    await client.query("SAVEPOINT effect_sql_2")
    await client.query(EVENT_LOCK, [key.organisation_id, EVENT_LOCK_SEED])
    const { updated_at: _, ...created } = contact
    await client.query(EVENT_INSERT, [
      key.organisation_id,
      "contact.created",
      JSON.stringify(created),
      now,
      now,
      now,
      now,
      key.organisation_id
    ])
    const response = JSON.stringify(contact)
    if (typeof idempotencyKey === "string") {
      await client.query(IDEM_SAVE, [
        key.id,
        idempotencyKey,
        fingerprint,
        201,
        JSON.stringify({ "content-type": JSON_TYPE }),
        response,
        new Date(claimedAt).toISOString()
      ])
    }
    await client.query("COMMIT")
    return [201, response]
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined)
    if ((error as { code?: string }).code === "23505")
      throw new Failure(409, "email_already_exists", "a live contact already has this email")
    throw error
  } finally {
    if (!released) {
      released = true
      client.release()
    }
  }
}

const handle = async (req: IncomingMessage, res: ServerResponse) => {
  const requestId = randomUUID()
  const headers: Record<string, string> = { "x-request-id": requestId }
  try {
    const url = new URL(req.url ?? "/", "http://localhost")
    const path = url.pathname
    let route: "get" | "list" | "create"
    let id = ""
    if (path === "/api/v1/contacts") {
      if (req.method === "GET") route = "list"
      else if (req.method === "POST") route = "create"
      else throw new Failure(405, "method_not_allowed", "allowed: GET, POST")
    } else if (path.startsWith("/api/v1/contacts/") && req.method === "GET") {
      id = path.slice("/api/v1/contacts/".length)
      route = "get"
    } else throw new Failure(404, "not_found", `no route for ${path}`)

    const { key, remaining } = await authenticate(req)
    headers["x-ratelimit-limit"] = String(RATE_LIMIT)
    headers["x-ratelimit-remaining"] = String(remaining)
    requireScope(key, route === "create" ? "write" : "read")

    const [status, body] =
      route === "get"
        ? UUID.test(id)
          ? await getContact(key, id)
          : (() => {
              throw new Failure(404, "not_found", "no such record")
            })()
        : route === "list"
          ? await listContacts(key, url)
          : await createContact(req, key, url)
    send(res, status, body, headers)
  } catch (error) {
    if (error instanceof Failure) {
      send(
        res,
        error.status,
        JSON.stringify({ error: error.code, detail: error.detail, request_id: requestId }),
        headers
      )
    } else {
      console.error("baseline: request failed", error)
      send(res, 500, JSON.stringify({ error: "internal_error", detail: String(error), request_id: requestId }), headers)
    }
  }
}

const server = createServer((req, res) => void handle(req, res))
server.listen(PORT, HOST, () => console.log(`baseline listening on http://${HOST}:${PORT} (pool ${POOL_SIZE})`))

const shutdown = () => {
  server.close()
  server.closeAllConnections()
  void pool.end().finally(() => process.exit(0))
}
process.on("SIGINT", shutdown)
process.on("SIGTERM", shutdown)
