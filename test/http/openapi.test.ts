import SwaggerParser from "@apidevtools/swagger-parser"
import { Api, ErrorStatus, OpenApi } from "@crm/http"
import { describe, expect, it } from "vitest"
import { startServer } from "../support/server.js"
import { memory } from "../support/storages.js"
import { onEveryStore } from "../support/suite.js"

onEveryStore("OpenAPI document", (server) => {
  it("is served without a key and is a valid OpenAPI 3.1 document covering every route", async () => {
    const response = await server().anonymous.get("/openapi.json")
    expect(response.status).toBe(200)
    expect(response.body.openapi).toBe("3.1.0")
    await SwaggerParser.validate(structuredClone(response.body))
    for (const mounted of Api.table) {
      const operation = response.body.paths[mounted.template]?.[mounted.route.method.toLowerCase()]
      expect(operation, `${mounted.route.method} ${mounted.template}`).toBeDefined()
      expect(operation.responses[String(mounted.route.success.status)]).toBeDefined()
    }
    const list = response.body.paths["/api/v1/contacts"].get
    const limit = list.parameters.find((p: any) => p.name === "limit")
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 200, default: 50 })
  })

  it("offers the sync fields on the lists (updated_since, order, cursor; include_archived where DELETE archives) and next_cursor in their pages", async () => {
    const { paths, components } = (await server().anonymous.get("/openapi.json")).body
    const parameters = (path: string) =>
      Object.fromEntries(paths[`/api/v1/${path}`].get.parameters.map((p: any) => [p.name, p.schema]))
    const archivable = ["contacts", "companies", "deals", "tasks"]
    const others = ["products", "records", "quotes", "invoices", "orders", "returns", "tickets", "purchase-orders"]
    for (const path of [...archivable, ...others]) {
      const query = parameters(path)
      expect(query.updated_since, path).toMatchObject({ type: "string", format: "date-time" })
      expect(query.order, path).toMatchObject({ enum: ["updated_at"] })
      expect(query.cursor, path).toMatchObject({ type: "string" })
      if (archivable.includes(path)) expect(query.include_archived, path).toMatchObject({ enum: ["true", "false"] })
      else expect(query.include_archived, path).toBeUndefined()
    }
    const contactPage = components.schemas.ContactPage
    expect(contactPage.required).toContain("next_cursor")
    expect(contactPage.properties.next_cursor.type).toEqual(["string", "null"])
    // Each row is a Contact, with archived_at beside it when include_archived is set: one object
    // (an allOf of the Contact, which admits no other property, and {archived_at} matches no row).
    const row = contactPage.properties.data.items
    expect(row.allOf).toBeUndefined()
    expect(row.properties).toMatchObject(components.schemas.Contact.properties)
    expect(row.required).toEqual(components.schemas.Contact.required)
    expect(JSON.stringify(row.properties.archived_at)).toContain('"null"')
    expect(JSON.stringify(components.schemas.ProductPage)).not.toContain("archived_at")
    expect(components.schemas.ProductPage.properties.next_cursor).toBeDefined()
  })

  it("states the URL and header limits on every operation, and 503 on every one that needs the store", async () => {
    const { paths } = (await server().anonymous.get("/openapi.json")).body
    const codesAt = (operation: any, status: string): Array<string> =>
      operation.responses[status]?.content["application/json"].schema.properties.error.enum ?? []
    for (const mounted of Api.table) {
      const operation = paths[mounted.template][mounted.route.method.toLowerCase()]
      const name = `${mounted.route.method} ${mounted.template}`
      expect(codesAt(operation, "414"), name).toContain("uri_too_long")
      expect(codesAt(operation, "431"), name).toContain("headers_too_large")
    }
    expect(codesAt(paths["/api/v1/contacts"].post, "503")).toEqual(["service_unavailable"])
    expect(codesAt(paths["/admin/v1/organisations"].post, "503")).toEqual(["service_unavailable"])
    expect(codesAt(paths["/readyz"].get, "503")).toEqual(["service_unavailable"])
    expect(paths["/healthz"].get.responses["503"]).toBeUndefined()
    expect(paths["/api/v1/openapi.json"].get.responses["503"]).toBeUndefined()
    expect(paths["/healthz"].get.security).toEqual([])
    expect(paths["/readyz"].get.security).toEqual([])
  })
})

describe("route table", () => {
  it("maps every error a route can answer to a status (no route can fall through to a 500)", () => {
    for (const mounted of Api.table) {
      for (const code of OpenApi.errorCodesOf(mounted)) expect(ErrorStatus.statusOf(code), code).toBeDefined()
    }
  })

  it("has no two routes with the same method and path", () => {
    const keys = Api.table.map((mounted) => `${mounted.route.method} ${mounted.template}`)
    expect(new Set(keys).size).toBe(keys.length)
  })
})

describe("OpenAPI document made at build time", () => {
  it("is served as given, byte for byte, and only when given", async () => {
    const made = JSON.stringify(Api.openApiDocument())
    const built = await startServer(memory.fresh(), { openApiDocument: made.replace('"3.1.0"', '"3.1.0" ') })
    try {
      const served = await built.anonymous.get("/openapi.json")
      expect(served.status).toBe(200)
      expect(served.text).toBe(made.replace('"3.1.0"', '"3.1.0" '))
    } finally {
      await built.close()
    }
    const plain = await startServer(memory.fresh())
    try {
      expect((await plain.anonymous.get("/openapi.json")).text).toBe(made)
    } finally {
      await plain.close()
    }
  })
})
