import { describe, expect, it } from "vitest"
import type { Answer } from "../../src/Edge.js"
import { lineOf, makeObserve, type RequestLine } from "../../src/edge/observe.js"
import { Reached } from "../../src/edge/Reached.js"
import type { Metrics } from "../../src/Metrics.js"
import { incomingOf, principalOf } from "./fakes.js"

const SECRET = "crm_live_7f3a9c2e1b5d4f6a8c0e2b4d6f8a0c2e"
const BODY = '{"email":"ada@example.com","note":"private"}'

const incoming = incomingOf({ authorization: `Bearer ${SECRET}`, "x-api-key": SECRET }, "203.0.113.7", "POST")
const answered: Answer = { status: 201, headers: { "content-type": "application/json" }, body: BODY }

describe("lineOf", () => {
  it("records who asked what and how it was answered, by the key's id only", () => {
    const principal = principalOf()
    const reached = Reached.start(incoming, "req-1")
      .matched("/api/v1/contacts")
      .admitted(principal, { limit: 120, remaining: 3 })
    expect(lineOf(reached, answered, 1.23456)).toEqual({
      request_id: "req-1",
      method: "POST",
      route: "/api/v1/contacts",
      status: 201,
      duration_ms: 1.235,
      organisation_id: principal.organisation.id,
      key_id: principal.key.id
    })
  })

  it("never holds the key's secret, its hash or the body", () => {
    const principal = principalOf()
    const reached = Reached.start(incoming, "req-1").matched("/api/v1/contacts").admitted(principal, {
      limit: 120,
      remaining: 3
    })
    const text = JSON.stringify(lineOf(reached, answered, 1))
    expect(text).not.toContain(SECRET)
    expect(text).not.toContain(principal.key.hash)
    expect(text).not.toContain("ada@example.com")
    expect(text).not.toContain("private")
  })

  it("has a null route and no key when nothing matched", () => {
    expect(lineOf(Reached.start(incoming, "req-1"), { ...answered, status: 404 }, 0)).toMatchObject({
      route: null,
      status: 404,
      organisation_id: null,
      key_id: null
    })
  })
})

describe("makeObserve", () => {
  it("is nothing when neither metrics nor a log are asked for", () => {
    expect(makeObserve(undefined, undefined)).toBeUndefined()
  })

  it("tells the log and the metrics of each request answered, as it reached", () => {
    const lines: Array<RequestLine> = []
    const observed: Array<unknown[]> = []
    const metrics = { observe: (...args: unknown[]) => observed.push(args) } as unknown as Metrics
    const reached = Reached.start(incoming, "req-1").matched("/api/v1/contacts")
    makeObserve(metrics, (line) => lines.push(line))!(reached, answered)
    expect(lines).toEqual([expect.objectContaining({ request_id: "req-1", route: "/api/v1/contacts", status: 201 })])
    expect(observed).toEqual([["POST", "/api/v1/contacts", 201, expect.any(Number)]])
    // The log in milliseconds, the metrics in seconds, of the same duration.
    const seconds = observed[0]![3] as number
    expect(seconds).toBeGreaterThanOrEqual(0)
    expect(lines[0]!.duration_ms).toBeCloseTo(seconds * 1000, 2)
  })

  it("tells either alone when only it is asked for", () => {
    const lines: Array<RequestLine> = []
    makeObserve(undefined, (line) => lines.push(line))!(Reached.start(incoming, "req-2"), answered)
    expect(lines).toMatchObject([{ request_id: "req-2", route: null }])
    const observed: Array<unknown[]> = []
    const metrics = { observe: (...args: unknown[]) => observed.push(args) } as unknown as Metrics
    makeObserve(metrics, undefined)!(Reached.start(incoming, "req-3"), answered)
    expect(observed).toEqual([["POST", undefined, 201, expect.any(Number)]])
  })
})
