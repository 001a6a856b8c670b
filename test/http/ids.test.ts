/**
 * Ids in requests: a uuid is accepted in any letter case and means the same record on every store.
 * Every id a request takes (body, query, MCP arguments) goes through the core's one id schema,
 * which lower-cases it; PostgreSQL's uuid type ignores case and the memory store's keys do not, so
 * an id taken as given would find a record on one store and not on the other.
 */
import { SchemaWalk } from "@crm/core"
import { Api } from "@crm/http"
import { tools } from "@crm/mcp"
import { describe, expect, it } from "vitest"
import type { z } from "zod"
import { onEveryStore } from "../support/suite.js"

const UPPER = "0F8FAD5B-D9CB-469F-A165-70867728950E"

/** The path of every uuid in `schema` that comes out of parsing as it was sent, not lower-cased. */
const idsTakenAsGiven = (schema: z.ZodType, path = ""): Array<string> => {
  const seen = new Set<unknown>()
  const walk = (node: SchemaWalk.Schema, at: string): Array<string> => {
    if (seen.has(node)) return []
    seen.add(node)
    const walked = SchemaWalk.node(node)
    switch (walked.kind) {
      case "string": {
        if (walked.format !== "uuid") return []
        const parsed = (node as z.ZodType).safeParse(UPPER)
        return parsed.success && parsed.data === UPPER.toLowerCase() ? [] : [at]
      }
      case "object":
        return walked.fields.flatMap(({ key, schema: field }) => walk(field, at === "" ? key : `${at}.${key}`))
      case "array":
        return walk(walked.element, `${at}[]`)
      case "union":
        return walked.options.flatMap((option) => walk(option, at))
      case "intersection":
        return [...walk(walked.left, at), ...walk(walked.right, at)]
      case "record":
        return walk(walked.value, `${at}.*`)
      case "tuple":
        return [
          ...walked.items.flatMap((item) => walk(item, `${at}[]`)),
          ...(walked.rest === undefined ? [] : walk(walked.rest, `${at}[]`))
        ]
      case "pipe":
        return [...walk(walked.in, at), ...walk(walked.out, at)]
      case "lazy":
        return walk(walked.schema(), at)
      default:
        return "inner" in walked ? walk(walked.inner, at) : []
    }
  }
  return walk(schema, path)
}

describe("ids in requests", () => {
  it("every id a route or an assistant tool takes is lower-cased by the one id schema", () => {
    const offenders = [
      ...Api.table.flatMap((mounted) => [
        ...(mounted.route.query === undefined ? [] : idsTakenAsGiven(mounted.route.query)).map(
          (path) => `${mounted.route.method} ${mounted.template} ?${path}`
        ),
        ...(mounted.route.body === undefined ? [] : idsTakenAsGiven(mounted.route.body.schema)).map(
          (path) => `${mounted.route.method} ${mounted.template} ${path}`
        )
      ]),
      ...tools.flatMap((tool) => idsTakenAsGiven(tool.input).map((path) => `tool ${tool.name} ${path}`))
    ]
    expect(offenders).toEqual([])
  })
})

const up = (id: string): string => id.toUpperCase()

onEveryStore("ids in any letter case", (server) => {
  it("takes upper-case ids in bodies, filters and paths as the same records, answering them in lower case", async () => {
    const [pipelineId, openId, wonId, ownerId] = Array.from({ length: 4 }, () => crypto.randomUUID())
    const { client } = await server().tenant({
      scopes: ["read", "write", "quotes:write", "invoices:write"],
      settings: {
        users: [{ id: up(ownerId!), name: "Owner", email: "owner@example.com" }],
        pipelines: [
          {
            id: up(pipelineId!),
            name: "Sales",
            stages: [
              { id: up(openId!), name: "Open", kind: "open" },
              { id: up(wonId!), name: "Won", kind: "won" }
            ]
          }
        ]
      }
    })
    const [pipeline] = (await client.get("/pipelines")).body.data
    expect(pipeline.id).toBe(pipelineId)
    expect(pipeline.stages.map((stage: { id: string }) => stage.id)).toEqual([openId, wonId])

    const company = (await client.post("/companies", { name: "Acme" })).body
    const contact = await client.post("/contacts", { first_name: "Ada", company_id: up(company.id) })
    expect(contact.status).toBe(201)
    expect(contact.body.company_id).toBe(company.id)
    const patched = await client.patch(`/contacts/${up(contact.body.id)}`, { company_id: up(company.id) })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ id: contact.body.id, company_id: company.id })

    const deal = await client.post("/deals", {
      title: "Engine",
      contact_id: up(contact.body.id),
      company_id: up(company.id),
      owner_id: up(ownerId!),
      pipeline_id: up(pipelineId!),
      status_id: up(openId!)
    })
    expect(deal.status).toBe(201)
    expect(deal.body).toMatchObject({
      contact_id: contact.body.id,
      company_id: company.id,
      owner_id: ownerId,
      pipeline_id: pipelineId,
      status_id: openId
    })
    const moved = await client.post(`/deals/${up(deal.body.id)}/status`, { status_id: up(wonId!) })
    expect(moved.status).toBe(200)
    expect(moved.body).toMatchObject({ status_id: wonId, status_kind: "won" })
    const deals = await client.get(`/deals?contact_id=${up(contact.body.id)}&pipeline_id=${up(pipelineId!)}`)
    expect(deals.body.data.map((row: { id: string }) => row.id)).toEqual([deal.body.id])

    const task = await client.post("/tasks", {
      title: "Call back",
      entity_type: "deal",
      entity_id: up(deal.body.id),
      assignee_id: up(ownerId!)
    })
    expect(task.status).toBe(201)
    expect(task.body).toMatchObject({ entity_id: deal.body.id, assignee_id: ownerId })
    const tasks = await client.get(`/tasks?entity_id=${up(deal.body.id)}&assignee_id=${up(ownerId!)}`)
    expect(tasks.body.data.map((row: { id: string }) => row.id)).toEqual([task.body.id])

    const items = [{ name: "Gear", quantity: 1, unit_price: 100, vat_rate: 21 }]
    const quote = await client.post("/quotes", { contact_id: up(contact.body.id), company_id: up(company.id), items })
    expect(quote.status).toBe(201)
    expect(quote.body).toMatchObject({ contact_id: contact.body.id, company_id: company.id })
    const quotes = await client.get(`/quotes?contact_id=${up(contact.body.id)}&company_id=${up(company.id)}`)
    expect(quotes.body.data.map((row: { id: string }) => row.id)).toEqual([quote.body.id])

    const invoice = await client.post("/invoices", { contact_id: up(contact.body.id), items })
    expect(invoice.status).toBe(201)
    expect(invoice.body.contact_id).toBe(contact.body.id)
    const invoices = await client.get(`/invoices?contact_id=${up(contact.body.id)}`)
    expect(invoices.body.data.map((row: { id: string }) => row.id)).toEqual([invoice.body.id])
  })
})
