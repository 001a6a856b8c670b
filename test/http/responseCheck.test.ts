/** The black-box suites' check of every answer against the OpenAPI document refuses what drifts. */
import { describe, expect, it } from "vitest"
import { responseDrift } from "../support/responseCheck.js"

const base = "http://127.0.0.1:1"
const id = "0b0b0b0b-0000-4000-8000-000000000000"
const json = "application/json"
const notFound = { error: "not_found", detail: "contact not found", request_id: "req-1" }

describe("responseDrift", () => {
  it("accepts an answer the document lists, with its schema and codes", () => {
    expect(responseDrift("GET", `${base}/api/v1/contacts/${id}`, 404, json, notFound)).toBeUndefined()
    expect(
      responseDrift("GET", `${base}/api/v1/contacts?limit=1`, 200, json, {
        data: [],
        limit: 1,
        offset: 0,
        has_more: false,
        next_cursor: null
      })
    ).toBeUndefined()
  })

  it("refuses a status the operation does not list", () => {
    expect(
      responseDrift("GET", `${base}/api/v1/contacts/${id}`, 409, json, { ...notFound, error: "conflict" })
    ).toMatch(/GET \/api\/v1\/contacts\/\{id\} answered 409, a status the OpenAPI document does not list/)
  })

  it("refuses an error code the status does not list, a missing field and an unknown one", () => {
    expect(responseDrift("GET", `${base}/api/v1/contacts/${id}`, 404, json, { ...notFound, error: "gone" })).toMatch(
      /does not allow/
    )
    const page = { data: [], limit: 1, offset: 0, has_more: false }
    expect(responseDrift("GET", `${base}/api/v1/contacts`, 200, json, page)).toMatch(/next_cursor/)
    expect(
      responseDrift("GET", `${base}/api/v1/contacts`, 200, json, { ...page, next_cursor: null, total: 0 })
    ).toMatch(/additional properties/)
  })

  it("refuses a body that is not JSON where the document says JSON, and leaves undocumented paths alone", () => {
    expect(responseDrift("GET", `${base}/api/v1/contacts/${id}`, 404, "text/plain", undefined)).toMatch(/content-type/)
    expect(responseDrift("GET", `${base}/api/v1/nowhere`, 404, "text/plain", undefined)).toBeUndefined()
  })
})
