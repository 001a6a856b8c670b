/**
 * The operator's metrics through the real server: Prometheus's text format at `GET /metrics`
 * behind the admin token (404 without one, as the admin API), or without it on a port of its own;
 * requests counted and timed by route template, and the store's queues read at each scrape.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { shipTo } from "../support/orders.js"
import { checkedFetch } from "../support/responseCheck.js"
import { ADMIN_TOKEN, startServer, type TestServer } from "../support/server.js"
import { memory } from "../support/storages.js"
import { onEveryStore } from "../support/suite.js"

interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

/** Prometheus's text format, the samples only: `name{label="value",...} number`. */
const parse = (text: string): Array<Sample> =>
  text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
      if (match === null) throw new Error(`not a sample line: ${line}`)
      const labels: Record<string, string> = {}
      for (const [, name, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name!] = value!
      return { name: match[1]!, labels, value: Number(match[3]) }
    })

/** The value of the one sample with this name and these labels (0 when there is none yet). */
const valueIn = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}): number => {
  const found = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([label, value]) => sample.labels[label] === value)
  )
  expect(found.length, `${name} ${JSON.stringify(labels)}`).toBeLessThanOrEqual(1)
  return found[0]?.value ?? 0
}

/** The one sample of `name`, which must be in the scrape (where `valueIn` reads a missing one as 0). */
const presentIn = (samples: ReadonlyArray<Sample>, name: string): number => {
  const found = samples.filter((sample) => sample.name === name)
  expect(found.map((sample) => sample.name)).toEqual([name])
  return found[0]!.value
}

/** `token` null sends none. */
const scrapeAt = async (url: string, token: string | null = ADMIN_TOKEN) => {
  const response = await checkedFetch(url, token === null ? {} : { headers: { authorization: `Bearer ${token}` } })
  return { response, text: await response.text() }
}

onEveryStore(
  "metrics",
  (server) => {
    const scrape = async () => {
      const { response, text } = await scrapeAt(`${server().url}/metrics`)
      expect(response.status, text).toBe(200)
      expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
      return parse(text)
    }

    it("refuses a scrape without the admin token or with a wrong one, as the admin API does", async () => {
      const missing = await scrapeAt(`${server().url}/metrics`, null)
      expect(missing.response.status).toBe(401)
      expect(JSON.parse(missing.text).error).toBe("missing_bearer_token")
      const wrong = await scrapeAt(`${server().url}/metrics`, "not-the-token")
      expect(wrong.response.status).toBe(401)
      expect(JSON.parse(wrong.text).error).toBe("invalid_api_key")
      expect(missing.text).not.toContain("crm_http_requests_total")
    })

    it("counts requests by method, route template and status, and times them by method and route", async () => {
      const { client } = await server().tenant()
      const contact = await client.post("/contacts", { first_name: "Ada" })
      const byId = { method: "GET", route: "/api/v1/contacts/{id}" }
      const before = await scrape()

      expect((await client.get(`/contacts/${contact.body.id}`)).status).toBe(200)
      expect((await client.get(`/contacts/${crypto.randomUUID()}`)).status).toBe(404)
      expect((await server().anonymous.get("/no/such/route")).status).toBe(404)
      const after = await scrape()

      const requests = (samples: Array<Sample>, labels: Record<string, string>) =>
        valueIn(samples, "crm_http_requests_total", labels)
      expect(requests(after, { ...byId, status: "200" }) - requests(before, { ...byId, status: "200" })).toBe(1)
      expect(requests(after, { ...byId, status: "404" }) - requests(before, { ...byId, status: "404" })).toBe(1)
      const unmatched = { method: "GET", route: "unmatched", status: "404" }
      expect(requests(after, unmatched) - requests(before, unmatched)).toBe(1)
      // A label per raw path would grow without end: the id never appears.
      expect(after.some((sample) => sample.labels.route?.includes(contact.body.id))).toBe(false)

      const count = (samples: Array<Sample>) => valueIn(samples, "crm_http_request_duration_seconds_count", byId)
      expect(count(after) - count(before)).toBe(2)
      const slowest = valueIn(after, "crm_http_request_duration_seconds_bucket", { ...byId, le: "+Inf" })
      expect(slowest).toBe(count(after))
      expect(valueIn(after, "crm_http_request_duration_seconds_sum", byId)).toBeGreaterThan(0)
      // The scrape itself is a request like any other.
      expect(valueIn(after, "crm_http_requests_total", { route: "/metrics", status: "200" })).toBeGreaterThan(0)
    })

    it("reads the webhook and mail queues and the event log's head at each scrape", async () => {
      const { organisation, client } = await server().tenant()
      const before = await scrape()
      const hook = await client.post("/hooks", { target_url: "http://127.0.0.1:9/hook", events: ["contact.created"] })
      expect(hook.status, hook.text).toBe(201)
      expect((await client.post("/contacts", { first_name: "Grace" })).status).toBe(201)
      await shipTo(client, "buyer@example.com")
      const after = await scrape()

      const pending = "crm_webhook_deliveries_pending"
      // The contact, and the buyer the order created: one delivery each, waiting for a worker.
      const deliveries = await client.get(`/hooks/${hook.body.id}/deliveries`)
      expect(deliveries.body.data.map((delivery: { status: string }) => delivery.status)).toEqual([
        "pending",
        "pending"
      ])
      expect(valueIn(after, pending) - valueIn(before, pending)).toBe(2)
      expect(presentIn(after, "crm_webhook_deliveries_oldest_pending_age_seconds")).toBeGreaterThanOrEqual(0)
      const queued = await server().admin.get(`/organisations/${organisation.id}/mail?status=queued`)
      expect(queued.body.data.length).toBeGreaterThan(0)
      expect(valueIn(after, "crm_mail_queued") - valueIn(before, "crm_mail_queued")).toBe(queued.body.data.length)
      expect(presentIn(after, "crm_mail_oldest_queued_age_seconds")).toBeGreaterThanOrEqual(0)

      const events = await client.get("/events?since=0&limit=200")
      const newest = events.body.data[events.body.data.length - 1]
      expect(valueIn(after, "crm_events_head_id")).toBe(Number(newest.id))
      expect(valueIn(after, "crm_events_head_id")).toBeGreaterThan(valueIn(before, "crm_events_head_id"))
    })

    it("serves the same metrics without a token on the metrics port, and nothing else there", async () => {
      const url = server().metricsUrl!
      const { response, text } = await scrapeAt(url, null)
      expect(response.status).toBe(200)
      expect(valueIn(parse(text), "crm_http_requests_total", { route: "/metrics", status: "200" })).toBeGreaterThan(0)
      // Not the API's listener, so not the document's /api/v1/me: its 404 is what is asked for.
      const elsewhere = await fetch(url.replace(/\/metrics$/, "/api/v1/me"))
      expect(elsewhere.status).toBe(404)
    })
  },
  // The queues stay as the requests leave them: no worker takes a delivery or a message meanwhile.
  { metricsPort: 0, webhooks: { worker: false, allowPrivateTargets: true }, mail: { every: "1 hour" } }
)

describe("metrics without an admin token [memory]", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer(memory.fresh(), { withoutAdmin: true })
  })
  afterAll(() => server.close())

  it("answers 404, as the admin API does, and serves no metrics port", async () => {
    const { response, text } = await scrapeAt(`${server.url}/metrics`)
    expect(response.status).toBe(404)
    expect(JSON.parse(text).error).toBe("not_found")
    expect(server.metricsUrl).toBeUndefined()
  })
})
