import { describe, expect, it } from "vitest"
import { makeTable } from "../../src/Api.js"
import { makeMatch } from "../../src/edge/match.js"
import { HttpFailure } from "../../src/Reply.js"

const table = makeTable()
const match = makeMatch(table)
const ID = "3F2504E0-4F89-41D3-9A0C-0305E82C3301"

describe("match", () => {
  it("finds the route of the method and path, and lower-cases an id", () => {
    const found = match("GET", `/api/v1/contacts/${ID}`)
    expect(found).not.toBeInstanceOf(HttpFailure)
    expect(found).toMatchObject({
      template: "/api/v1/contacts/{id}",
      params: { id: ID.toLowerCase() },
      keyed: false
    })
    const served = table.find(
      (mounted) => mounted.template === "/api/v1/contacts/{id}" && mounted.route.method === "GET"
    )
    expect(found).toHaveProperty("route", served?.route)
  })

  it("lower-cases every id of a path with several", () => {
    const delivery = "A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D"
    expect(match("POST", `/api/v1/hooks/${ID}/deliveries/${delivery}/redeliver`)).toMatchObject({
      params: { id: ID.toLowerCase(), delivery_id: delivery.toLowerCase() },
      keyed: false
    })
  })

  it("answers a malformed id as a record that does not exist", () => {
    for (const id of ["42", `${ID}0`, "3f2504e0-4f89-41d3-9a0c-0305e82c330g", "3f2504e04f8941d39a0c0305e82c3301"]) {
      expect(match("GET", `/api/v1/contacts/${id}`)).toEqual(HttpFailure.of("not_found", "no such record"))
    }
  })

  it("answers a path no route serves with not_found", () => {
    const refused = match("GET", "/api/v1/no-such-things")
    expect(refused).toBeInstanceOf(HttpFailure)
    expect(refused).toMatchObject({ code: "not_found", headers: {} })
  })

  it("answers another method on a served path with method_not_allowed and the methods in Allow", () => {
    const refused = match("PUT", `/api/v1/contacts/${ID}`)
    expect(refused).toBeInstanceOf(HttpFailure)
    const failure = refused as HttpFailure
    expect(failure.code).toBe("method_not_allowed")
    expect(failure.headers.allow?.split(", ").sort()).toEqual(["DELETE", "GET", "PATCH"])
    expect(failure.detail).toBe(`allowed: ${failure.headers.allow}`)
  })

  it("passes a natural key on as it came, marked keyed, for the input stage to check", () => {
    for (const [path, name, value] of [
      ["/api/v1/products/by-sku/Sku-ABC%2F1", "sku", "Sku-ABC/1"],
      ["/api/v1/contacts/by-email/Ada%40Example.COM", "email", "Ada@Example.COM"],
      ["/api/v1/companies/by-domain/Example.COM", "domain", "Example.COM"]
    ] as const) {
      expect(match("PUT", path)).toMatchObject({ params: { [name]: value }, keyed: true })
    }
  })
})
