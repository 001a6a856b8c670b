/**
 * The benchmark's competitor: a bare `node:http` + `pg` server that does, per request, what any
 * correct implementation of the measured routes must do, and nothing more. It is what a competent
 * engineer would write by hand for these five routes, so the ratio ours/bare prices the whole of
 * our stack (Effect runtime, routing table, zod validation, storage ports, the SQL we send), not a
 * copy of our own wire traffic.
 *
 * Per request:
 * - SHA-256 of the bearer token (node:crypto) and ONE lookup of the key joined to its organisation
 *   (only the columns needed); revocation, expiry, IP allow-list, scope and the plan's read-only
 *   flag are checked in process.
 * - ONE call of `crm_rate_take` (migration 0002), the exact rolling-window limiter, in autocommit,
 *   so refused and failed requests spend budget too.
 * - The route's one statement: `GET /contacts/{id}`, `GET /contacts` (limit/offset, `limit + 1`
 *   rows for `has_more`, and `next_cursor` signed for the page's last row with the database's cursor
 *   secret, read once), `GET /events?since=&limit=`.
 * - `POST /contacts`: one transaction on one client, no savepoints:
 *     BEGIN
 *     [Idempotency-Key] pg_try_advisory_xact_lock(hashtextextended(key_id || ':' || idem_key, 1917))
 *     [Idempotency-Key] the stored response, if any (a second statement: it must see what the
 *                       previous holder of the lock committed, so it cannot share the lock's snapshot)
 *     [plan.max_contacts set] the count of live contacts; [company_id given] the company lookup
 *     INSERT INTO contacts ... ON CONFLICT (organisation_id, email) WHERE <contacts_live_email's
 *       predicate> DO NOTHING RETURNING id: the partial unique index decides, and a duplicate
 *       leaves the transaction usable (no savepoint), so the 409 can be stored under its key
 *     [duplicate] the holder's id for the 409 detail
 *     [Idempotency-Key] INSERT INTO idempotency ... (the response, 24 h window)
 *     one statement that takes the per-organisation lock pg_advisory_xact_lock(hashtextextended(org, 42))
 *       in a CTE, appends the event and writes the webhook outbox (as EventLog.append does); last,
 *       so the lock that orders the event ids is held only until COMMIT
 *     COMMIT
 * Every parameterised statement is named (prepared once per connection). Pool: `pg.Pool`, 10
 * connections. Responses carry the same statuses, headers (x-request-id, x-ratelimit-limit,
 * x-ratelimit-remaining, content-type, retry-after, idempotency-replayed) and JSON bodies as ours;
 * test/bench/run.ts checks that on every run.
 *
 * It implements only the measured routes (anything else is 404; list and events filters it does not
 * offer are 501), delivers no webhooks (it writes the same outbox rows; delivering is background
 * work outside the request) and caches nothing.
 *
 * Env: PORT, HOST (127.0.0.1), DATABASE_URL, POOL_SIZE (10), CRM_RATE_LIMIT (120).
 */
import { createHash, createHmac, randomBytes, randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { BlockList, isIPv4, isIPv6 } from "node:net"
import pg from "pg"

const PORT = Number(process.env.PORT ?? 3000)
const HOST = process.env.HOST ?? "127.0.0.1"
const DATABASE_URL = process.env.DATABASE_URL
const POOL_SIZE = Number(process.env.POOL_SIZE ?? 10)
const RATE_LIMIT = Number(process.env.CRM_RATE_LIMIT ?? 120)
const RATE_WINDOW_MS = 60_000
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000
const MAX_BODY_BYTES = 1024 * 1024
const JSON_TYPE = "application/json; charset=utf-8"
const MAX_EVENT_ID = 9_223_372_036_854_775_807n

if (DATABASE_URL === undefined) {
  console.error("baseline: set DATABASE_URL")
  process.exit(2)
}

const pool = new pg.Pool({ connectionString: DATABASE_URL, max: POOL_SIZE, application_name: "crm-baseline" })
pool.on("error", (error) => console.error("baseline: idle client error", error))

// ---- Statements ---------------------------------------------------------------------------------

const CONTACT_COLUMNS =
  "id, first_name, last_name, email, phone, company_id, status, source, custom, created_at, updated_at"

const KEY = {
  name: "bare_key",
  text: `SELECT k.id, k.organisation_id, k.scopes, k.allowed_ips, k.expires_at, k.revoked_at, o.settings -> 'plan' AS plan
    FROM api_keys k JOIN organisations o ON o.id = k.organisation_id WHERE k.hash = $1`
}
const RATE = {
  name: "bare_rate",
  text: `SELECT admitted, remaining, retry_after_ms
    FROM crm_rate_take($1::text, $2::bigint, $3::integer, $4::bigint, $5::boolean)`
}
const CONTACT_GET = {
  name: "bare_contact_get",
  text: `SELECT ${CONTACT_COLUMNS} FROM contacts WHERE organisation_id = $1::uuid AND archived_at IS NULL AND id = $2::uuid`
}
const CONTACT_LIST = {
  name: "bare_contact_list",
  text: `SELECT ${CONTACT_COLUMNS} FROM contacts WHERE organisation_id = $1::uuid AND archived_at IS NULL
    ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`
}
const EVENTS_AFTER = {
  name: "bare_events_after",
  // The payload as the text stored (the column is json): a careful server sends it on unparsed.
  text: `SELECT id, event, data::text AS data, created_at FROM events WHERE organisation_id = $1::uuid AND id > $2::bigint
    ORDER BY id LIMIT $3`
}
const IDEM_LOCK = {
  name: "bare_idem_lock",
  text: `SELECT pg_try_advisory_xact_lock(hashtextextended($1::text || ':' || $2::text, 1917)) AS locked`
}
const IDEM_FIND = {
  name: "bare_idem_find",
  text: `SELECT fingerprint, payload FROM idempotency
    WHERE key_id = $1 AND idem_key = $2 AND created_at >= $3::timestamptz`
}
const COUNT_LIVE = {
  name: "bare_count_live",
  text: `SELECT count(*) AS n FROM contacts WHERE organisation_id = $1::uuid AND archived_at IS NULL`
}
const COMPANY_EXISTS = {
  name: "bare_company_exists",
  text: `SELECT 1 FROM companies WHERE organisation_id = $1::uuid AND archived_at IS NULL AND id = $2::uuid`
}
const CONTACT_INSERT = {
  name: "bare_contact_insert",
  text: `INSERT INTO contacts (${CONTACT_COLUMNS}, organisation_id)
    VALUES ($1::uuid, $2, $3, $4, $5, $6::uuid, $7, $8, $9::jsonb, $10::timestamptz, $10::timestamptz, $11::uuid)
    ON CONFLICT (organisation_id, email) WHERE archived_at IS NULL AND email IS NOT NULL DO NOTHING
    RETURNING id`
}
const EMAIL_HOLDER = {
  name: "bare_email_holder",
  text: `SELECT id FROM contacts WHERE organisation_id = $1::uuid AND archived_at IS NULL AND email = $2`
}
const IDEM_SAVE = {
  name: "bare_idem_save",
  text: `INSERT INTO idempotency (key_id, idem_key, fingerprint, payload, created_at)
    VALUES ($1, $2, $3, $4, $5::timestamptz)
    ON CONFLICT (key_id, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, payload = EXCLUDED.payload,
      created_at = EXCLUDED.created_at`
}
// The lock CTE calls a volatile function, so PostgreSQL never inlines it: the INSERT reads its one
// row, so the lock is held before the event's id is drawn from the sequence.
const EVENT_APPEND = {
  name: "bare_event_append",
  text: `WITH held AS (SELECT pg_advisory_xact_lock(hashtextextended($1::uuid::text, 42))),
    appended AS (
      INSERT INTO events (organisation_id, event, data, created_at)
      SELECT $1::uuid, $2::text, $3::json, $4::timestamptz FROM held
      RETURNING id, event, data
    )
    INSERT INTO webhook_deliveries (id, organisation_id, hook_id, event_id, event, body, status,
      attempt_count, next_attempt_at, created_at)
    SELECT gen_random_uuid(), h.organisation_id, h.id, e.id, e.event,
      '{"id":"' || e.id || '","event":"' || e.event || '","data":' || e.data::text || ',"created_at":"' || $5::text || '"}',
      'pending', 0, $4::timestamptz, $4::timestamptz
    FROM appended e
    JOIN webhook_hooks h ON h.organisation_id = $1::uuid AND h.active AND e.event = ANY (h.events)
    JOIN api_keys k ON k.id = h.key_id AND k.revoked_at IS NULL`
}

// ---- Rows ---------------------------------------------------------------------------------------

interface KeyRow {
  readonly id: string
  readonly organisation_id: string
  readonly scopes: ReadonlyArray<string>
  readonly allowed_ips: ReadonlyArray<string>
  readonly expires_at: Date | null
  readonly revoked_at: Date | null
  readonly plan: { readonly read_only?: boolean; readonly max_contacts?: number | null } | null
}

interface ContactRow {
  readonly id: string
  readonly first_name: string | null
  readonly last_name: string | null
  readonly email: string | null
  readonly phone: string | null
  readonly company_id: string | null
  readonly status: string
  readonly source: string | null
  readonly custom: Record<string, unknown> | null
  readonly created_at: Date
  readonly updated_at: Date
}

interface EventRow {
  readonly id: string
  readonly event: string
  readonly data: string
  readonly created_at: Date
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
  custom: row.custom ?? {},
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString()
})

// ---- Failures -----------------------------------------------------------------------------------

class Failure {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: unknown,
    readonly headers: Record<string, string> = {}
  ) {}
}

const invalid = (path: string, message: string, code: string) =>
  new Failure(422, "validation_failed", [{ path, message, code }])

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const BEARER = /^Bearer\s+(\S+)\s*$/i
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
const JSON_CONTENT = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/
// zod's email pattern, which our server validates with.
const EMAIL = /^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/
const STATUSES = new Set(["lead", "prospect", "customer", "inactive"])
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

// ---- Authentication and budget ------------------------------------------------------------------

const allowedFrom = (address: string, allowed: ReadonlyArray<string>): boolean => {
  const plain = address.startsWith("::ffff:") && isIPv4(address.slice(7)) ? address.slice(7) : address
  const type = isIPv4(plain) ? "ipv4" : isIPv6(plain) ? "ipv6" : undefined
  if (type === undefined) return false
  const list = new BlockList()
  for (const entry of allowed) {
    const [ip, bits] = entry.split("/")
    const family = isIPv4(ip!) ? "ipv4" : "ipv6"
    if (bits === undefined) list.addAddress(ip!, family)
    else list.addSubnet(ip!, Number(bits), family)
  }
  return list.check(plain, type)
}

interface Principal {
  readonly key: KeyRow
  readonly remaining: number
}

const authenticate = async (req: IncomingMessage, headers: Record<string, string>): Promise<Principal> => {
  const token = BEARER.exec(req.headers.authorization ?? "")?.[1]
  if (token === undefined) throw new Failure(401, "missing_bearer_token", "send Authorization: Bearer <API key>")
  const hash = createHash("sha256").update(token).digest("hex")
  const key = (await pool.query<KeyRow>({ ...KEY, values: [hash] })).rows[0]
  if (key === undefined || key.revoked_at !== null)
    throw new Failure(401, "invalid_api_key", "the API key is not valid")
  if (key.allowed_ips.length > 0 && !allowedFrom(req.socket.remoteAddress ?? "", key.allowed_ips)) {
    throw new Failure(401, "invalid_api_key", "the API key is not valid")
  }
  if (key.expires_at !== null && key.expires_at.getTime() <= Date.now()) {
    throw new Failure(401, "expired_api_key", `the API key expired at ${key.expires_at.toISOString()}`)
  }
  const { rows } = await pool.query<{ admitted: boolean; remaining: number; retry_after_ms: string }>({
    ...RATE,
    values: [key.id, Date.now(), RATE_LIMIT, RATE_WINDOW_MS, true]
  })
  const decision = rows[0]!
  headers["x-ratelimit-limit"] = String(RATE_LIMIT)
  headers["x-ratelimit-remaining"] = String(decision.remaining)
  if (!decision.admitted) {
    throw new Failure(429, "rate_limited", `more than ${RATE_LIMIT} requests in a minute`, {
      "retry-after": String(Math.max(1, Math.ceil(Number(decision.retry_after_ms) / 1000)))
    })
  }
  return { key, remaining: decision.remaining }
}

const authorize = (key: KeyRow, scope: "read" | "write") => {
  if (!key.scopes.includes(scope))
    throw new Failure(403, `missing_scope:${scope}`, `this API key lacks the '${scope}' scope`)
  if (scope === "write" && key.plan?.read_only === true) throw new Failure(403, "plan_refused", "READ_ONLY")
}

// ---- Reads --------------------------------------------------------------------------------------

type Answer = { readonly status: number; readonly body: string; readonly headers?: Record<string, string> }

/** Query parameters this server does not offer: refused rather than silently ignored. */
const refuseOthers = (url: URL, known: ReadonlyArray<string>) => {
  for (const name of url.searchParams.keys()) {
    if (!known.includes(name)) throw new Failure(501, "not_implemented", `the baseline does not offer '${name}'`)
  }
}

const integerParam = (url: URL, name: string, fallback: number, min: number, max: number): number => {
  const raw = url.searchParams.get(name)
  if (raw === null) return fallback
  const value = raw.trim() === "" ? Number.NaN : Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) {
    throw invalid(name, `must be an integer from ${min} to ${max}`, "invalid_number")
  }
  return value
}

const getContact = async (key: KeyRow, id: string): Promise<Answer> => {
  const row = (await pool.query<ContactRow>({ ...CONTACT_GET, values: [key.organisation_id, id] })).rows[0]
  if (row === undefined) throw new Failure(404, "not_found", "no such contact")
  return { status: 200, body: JSON.stringify(toContact(row)) }
}

// The sync lists' cursor secret (core `SignedCursor`): made by the first server that needs it,
// shared through the database, read once.
let cursorSecret: Promise<Buffer> | undefined
const readCursorSecret = async (): Promise<Buffer> => {
  await pool.query("INSERT INTO cursor_secret (secret) VALUES ($1) ON CONFLICT DO NOTHING", [
    randomBytes(32).toString("hex")
  ])
  const { rows } = await pool.query<{ secret: string }>("SELECT secret FROM cursor_secret")
  return Buffer.from(rows[0]!.secret, "hex")
}

/** The cursor after `row` in the contacts list, newest first: its key (order, time, id) and the MAC. */
const nextCursor = async (organisationId: string, row: ContactRow): Promise<string> => {
  cursorSecret ??= readCursorSecret()
  const key = Buffer.alloc(25)
  key.writeUInt8(1, 0)
  key.writeBigInt64BE(BigInt(row.created_at.getTime()), 1)
  Buffer.from(row.id.replaceAll("-", ""), "hex").copy(key, 9)
  const mac = createHmac("sha256", await cursorSecret)
    .update(`${organisationId}\ncontacts\n`)
    .update(key)
    .digest()
  return Buffer.concat([key, mac]).toString("base64url")
}

const listContacts = async (key: KeyRow, url: URL): Promise<Answer> => {
  refuseOthers(url, ["limit", "offset"])
  const limit = integerParam(url, "limit", 50, 1, 200)
  const offset = integerParam(url, "offset", 0, 0, Number.MAX_SAFE_INTEGER)
  const { rows } = await pool.query<ContactRow>({ ...CONTACT_LIST, values: [key.organisation_id, limit + 1, offset] })
  const more = rows.length > limit
  const page = more ? rows.slice(0, limit) : rows
  const next = more ? await nextCursor(key.organisation_id, page[page.length - 1]!) : null
  return {
    status: 200,
    body: JSON.stringify({ data: page.map(toContact), limit, offset, has_more: more, next_cursor: next })
  }
}

const listEvents = async (key: KeyRow, url: URL): Promise<Answer> => {
  refuseOthers(url, ["since", "limit"])
  const raw = url.searchParams.get("since") ?? ""
  if (raw !== "" && !/^\d{1,19}$/.test(raw)) {
    throw new Failure(400, "invalid_parameter", {
      parameter: "since",
      message: "since must be a non-negative integer cursor"
    })
  }
  const since = raw === "" ? 0n : BigInt(raw)
  const limit = integerParam(url, "limit", 100, 1, 500)
  const rows =
    since >= MAX_EVENT_ID
      ? []
      : (await pool.query<EventRow>({ ...EVENTS_AFTER, values: [key.organisation_id, since.toString(), limit + 1] }))
          .rows
  const page = rows.length > limit ? rows.slice(0, limit) : rows
  // Rendered around each payload's stored text instead of parsing it only to render it again.
  const data = page.map(
    (row) =>
      `{"id":${JSON.stringify(row.id)},"event":${JSON.stringify(row.event)},"data":${row.data},"created_at":"${row.created_at.toISOString()}"}`
  )
  const last = page[page.length - 1]
  return {
    status: 200,
    body: `{"data":[${data.join(",")}],"next_cursor":${JSON.stringify(last === undefined ? since.toString() : last.id)},"has_more":${rows.length > limit}}`
  }
}

// ---- The write ----------------------------------------------------------------------------------

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    if (Number(req.headers["content-length"] ?? 0) > MAX_BODY_BYTES) {
      req.resume()
      reject(new Failure(413, "payload_too_large", `the body exceeds the limit of ${MAX_BODY_BYTES} bytes`))
      return
    }
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    req.on("end", () =>
      size > MAX_BODY_BYTES
        ? reject(new Failure(413, "payload_too_large", `the body exceeds the limit of ${MAX_BODY_BYTES} bytes`))
        : resolve(Buffer.concat(chunks))
    )
    req.on("error", () => reject(new Failure(400, "invalid_json", "the request body could not be read")))
  })

/** PostgreSQL stores neither NUL nor a lone surrogate in text or jsonb: refused up front, anywhere in the body. */
const refuseUnstorable = (value: unknown, path: string) => {
  if (typeof value === "string") {
    if (value.includes("\u0000") || LONE_SURROGATE.test(value)) {
      throw invalid(path, "must not contain NUL characters or unpaired surrogates", "invalid_characters")
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      refuseUnstorable(item, path === "" ? String(i) : `${path}.${i}`)
    })
  } else if (value !== null && typeof value === "object") {
    for (const [name, item] of Object.entries(value)) {
      refuseUnstorable(name, path === "" ? name : `${path}.${name}`)
      refuseUnstorable(item, path === "" ? name : `${path}.${name}`)
    }
  }
}

const FIELDS = new Set(["first_name", "last_name", "email", "phone", "company_id", "status", "source", "custom"])

const text = (body: Record<string, unknown>, field: string, max: number): string | null => {
  const value = body[field]
  if (value === undefined || value === null) return null
  if (typeof value !== "string") throw invalid(field, "expected string", "invalid_type")
  if (value.length > max) throw invalid(field, `at most ${max} characters`, "too_big")
  return value
}

interface ContactInput {
  readonly first_name: string | null
  readonly last_name: string | null
  readonly email: string | null
  readonly phone: string | null
  readonly company_id: string | null
  readonly status: string
  readonly source: string | null
  readonly custom: Record<string, unknown>
}

const parseContact = (req: IncomingMessage, raw: Buffer): ContactInput => {
  let input: unknown
  if (raw.length > 0) {
    if (!JSON_CONTENT.test(req.headers["content-type"] ?? "")) {
      throw new Failure(415, "unsupported_media_type", "send the body as Content-Type: application/json")
    }
    try {
      input = JSON.parse(raw.toString("utf8"))
    } catch (error) {
      throw new Failure(400, "invalid_json", `the body is not valid JSON: ${(error as Error).message}`)
    }
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw invalid("", "expected object", "invalid_type")
  }
  refuseUnstorable(input, "")
  const body = input as Record<string, unknown>
  for (const name of Object.keys(body)) {
    if (!FIELDS.has(name)) throw invalid(name, "unknown field", "unrecognized_key")
  }
  const email = text(body, "email", 320)
  if (email !== null && !EMAIL.test(email)) throw invalid("email", "Invalid email address", "invalid_format")
  const companyId = text(body, "company_id", 36)
  if (companyId !== null && !UUID.test(companyId)) throw invalid("company_id", "Invalid UUID", "invalid_format")
  const status = body.status ?? "lead"
  if (typeof status !== "string" || !STATUSES.has(status)) {
    throw invalid("status", 'Invalid option: expected one of "lead"|"prospect"|"customer"|"inactive"', "invalid_value")
  }
  const custom = body.custom ?? {}
  if (typeof custom !== "object" || custom === null || Array.isArray(custom)) {
    throw invalid("custom", "expected record", "invalid_type")
  }
  const contact: ContactInput = {
    first_name: text(body, "first_name", 500),
    last_name: text(body, "last_name", 500),
    email: email === null ? null : email.trim().toLowerCase(),
    phone: text(body, "phone", 50),
    company_id: companyId === null ? null : companyId.toLowerCase(),
    status,
    source: text(body, "source", 500),
    custom: custom as Record<string, unknown>
  }
  if (![contact.first_name, contact.last_name, email].some((value) => value !== null && value !== "")) {
    throw invalid("first_name", "one of first_name, last_name or email is required", "custom")
  }
  return contact
}

/** What a retry must see again: not 5xx, 429 or 401 (our server's rule). */
const storable = (status: number) => status < 500 && status !== 429 && status !== 401

const failureBody = (failure: Failure, requestId: string) =>
  JSON.stringify({ error: failure.code, detail: failure.detail, request_id: requestId })

const createContact = async (req: IncomingMessage, url: URL, key: KeyRow, requestId: string): Promise<Answer> => {
  const raw = await readBody(req)
  const input = parseContact(req, raw)
  const header = req.headers["idempotency-key"]
  let idemKey: string | undefined
  if (typeof header === "string") {
    idemKey = /^"(.*)"$/.exec(header)?.[1] ?? header
    if (!IDEMPOTENCY_KEY.test(idemKey)) {
      throw invalid("Idempotency-Key", "must be 1 to 255 printable ASCII characters", "invalid_header")
    }
  }
  const org = key.organisation_id
  const client = await pool.connect()
  try {
    await client.query("BEGIN")
    const claimedAt = Date.now()
    let fingerprint = ""
    if (idemKey !== undefined) {
      fingerprint = createHash("sha256")
        .update(`${req.method} ${url.pathname}${url.search}\n`)
        .update(raw)
        .digest("hex")
      const lock = await client.query<{ locked: boolean }>({ ...IDEM_LOCK, values: [key.id, idemKey] })
      if (!lock.rows[0]!.locked) {
        throw new Failure(
          409,
          "idempotency_in_progress",
          "a request with this Idempotency-Key is still being processed",
          {
            "retry-after": "1"
          }
        )
      }
      const stored = await client.query<{ fingerprint: string; payload: string }>({
        ...IDEM_FIND,
        values: [key.id, idemKey, new Date(claimedAt - IDEMPOTENCY_WINDOW_MS).toISOString()]
      })
      const found = stored.rows[0]
      if (found !== undefined) {
        await client.query("COMMIT")
        if (found.fingerprint !== fingerprint) {
          throw new Failure(
            422,
            "idempotency_key_reused",
            "this Idempotency-Key was used with another method, path or body"
          )
        }
        // The response as stored (migration 0022's encoding): the status, a line feed, the headers
        // as JSON, a line feed, the body.
        const first = found.payload.indexOf("\n")
        const second = found.payload.indexOf("\n", first + 1)
        return {
          status: Number(found.payload.slice(0, first)),
          body: found.payload.slice(second + 1),
          headers: { ...JSON.parse(found.payload.slice(first + 1, second)), "idempotency-replayed": "true" }
        }
      }
    }

    let answer: Answer
    let contact: ReturnType<typeof toContact> | undefined
    try {
      const max = key.plan?.max_contacts
      if (typeof max === "number") {
        const { rows } = await client.query<{ n: string }>({ ...COUNT_LIVE, values: [org] })
        if (Number(rows[0]!.n) >= max) throw new Failure(403, "plan_refused", "MAX_CONTACTS")
      }
      if (input.company_id !== null) {
        const { rows } = await client.query({ ...COMPANY_EXISTS, values: [org, input.company_id] })
        if (rows.length === 0) {
          throw invalid("company_id", `no such record in this organisation: ${input.company_id}`, "unknown_reference")
        }
      }
      const now = new Date(Date.now()).toISOString()
      const id = randomUUID()
      const inserted = await client.query({
        ...CONTACT_INSERT,
        values: [
          id,
          input.first_name,
          input.last_name,
          input.email,
          input.phone,
          input.company_id,
          input.status,
          input.source,
          JSON.stringify(input.custom),
          now,
          org
        ]
      })
      if (inserted.rows.length === 0) {
        const holder = await client.query<{ id: string }>({ ...EMAIL_HOLDER, values: [org, input.email] })
        throw new Failure(409, "email_already_exists", {
          id: holder.rows[0]?.id ?? null,
          message: "a live contact already has this email"
        })
      }
      contact = { id, ...input, created_at: now, updated_at: now }
      answer = { status: 201, body: JSON.stringify(contact) }
    } catch (error) {
      if (!(error instanceof Failure)) throw error
      answer = { status: error.status, body: failureBody(error, requestId), headers: error.headers }
    }

    if (idemKey !== undefined && storable(answer.status)) {
      await client.query({
        ...IDEM_SAVE,
        values: [
          key.id,
          idemKey,
          fingerprint,
          `${answer.status}\n${JSON.stringify({ ...answer.headers, "content-type": JSON_TYPE })}\n${answer.body}`,
          new Date(claimedAt).toISOString()
        ]
      })
    }
    if (contact !== undefined) {
      const { updated_at: _, ...data } = contact
      await client.query({
        ...EVENT_APPEND,
        values: [org, "contact.created", JSON.stringify(data), contact.created_at, contact.created_at]
      })
    }
    await client.query("COMMIT")
    return answer
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}

// ---- Routing ------------------------------------------------------------------------------------

const send = (res: ServerResponse, answer: Answer, headers: Record<string, string>) => {
  res.writeHead(answer.status, {
    ...answer.headers,
    ...headers,
    "content-type": JSON_TYPE,
    "content-length": Buffer.byteLength(answer.body)
  })
  res.end(answer.body)
}

const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const given = req.headers["x-request-id"]
  const requestId = typeof given === "string" && SANE_REQUEST_ID.test(given) ? given : randomUUID()
  const headers: Record<string, string> = { "x-request-id": requestId }
  try {
    const url = new URL(req.url ?? "/", "http://localhost")
    const path = url.pathname
    let answer: Answer
    if (path === "/api/v1/contacts") {
      if (req.method !== "GET" && req.method !== "POST") {
        throw new Failure(405, "method_not_allowed", "allowed: GET, POST", { allow: "GET, POST" })
      }
      const { key } = await authenticate(req, headers)
      if (req.method === "GET") {
        authorize(key, "read")
        answer = await listContacts(key, url)
      } else {
        authorize(key, "write")
        answer = await createContact(req, url, key, requestId)
      }
    } else if (path.startsWith("/api/v1/contacts/") && path.indexOf("/", 17) === -1) {
      if (req.method !== "GET") throw new Failure(404, "not_found", `the baseline does not serve ${req.method} ${path}`)
      const id = path.slice(17)
      // A malformed id names no record: the same answer as a missing one, before authentication (as ours).
      if (!UUID.test(id)) throw new Failure(404, "not_found", "no such record")
      const { key } = await authenticate(req, headers)
      authorize(key, "read")
      answer = await getContact(key, id.toLowerCase())
    } else if (path === "/api/v1/events" && req.method === "GET") {
      const { key } = await authenticate(req, headers)
      authorize(key, "read")
      answer = await listEvents(key, url)
    } else {
      throw new Failure(404, "not_found", `no route for ${path}`)
    }
    send(res, answer, headers)
  } catch (error) {
    if (error instanceof Failure) {
      send(res, { status: error.status, body: failureBody(error, requestId), headers: error.headers }, headers)
    } else {
      console.error("baseline: request failed", error)
      send(
        res,
        {
          status: 500,
          body: failureBody(new Failure(500, "internal_error", "an unexpected error occurred"), requestId)
        },
        headers
      )
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
