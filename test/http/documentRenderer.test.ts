/**
 * The PDF routes get their bytes through the transport's `DocumentRenderer` port. Without a
 * renderer (an embedder that left `@crm/pdf` out) they answer 501 `not_implemented` saying why,
 * never a 500; with one, the file under the document's number. The handlers are called as the
 * pipeline calls them, on stand-ins for the services: what is checked is the port, not the layout
 * (test/http/pdf.test.ts reads the PDFs the server renders).
 */
import { Invoicing, Quotes } from "@crm/core"
import { Api, DocumentRenderer } from "@crm/http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { describe, expect, it } from "vitest"

const ID = "0b7e3c52-5f3a-4b8e-9a51-3f0d7c1e9a24"
const settings = { name: "Dílna" } as any
const invoice = { id: ID, number: undefined } as any
const quote = { id: ID, number: "Q2026/0007" } as any
const buyer = { name: "Kůň a.s." } as any

const services = Context.make(Invoicing.Invoicing, { get: () => Effect.succeed(invoice) } as any).pipe(
  Context.add(Quotes.Quotes, { addressed: () => Effect.succeed({ quote, buyer }) } as any)
)

const call = (operationId: string, context: Context.Context<never>) => {
  const mounted = Api.table.find((entry) => entry.route.operationId === operationId)!
  const request = {
    principal: { organisation: { settings } },
    params: { id: ID },
    query: undefined,
    body: undefined,
    rateRemaining: undefined
  } as any
  return Effect.runPromiseExit(
    mounted.route.handle(request).pipe(Effect.provide(Context.merge(services, context))) as Effect.Effect<any, any>
  )
}

describe("the PDF routes' renderer", () => {
  it("is missing: 501 not_implemented naming what the server lacks", async () => {
    for (const operationId of ["getInvoicePdf", "getQuotePdf"]) {
      const exit = await call(operationId, Context.empty())
      expect(exit).toEqual(Exit.fail(DocumentRenderer.NO_RENDERER))
      expect(DocumentRenderer.NO_RENDERER.code).toBe("not_implemented")
      expect(DocumentRenderer.NO_RENDERER.detail).toContain("@crm/pdf")
    }
  })

  it("is given the organisation's settings and the document, and its bytes are the file", async () => {
    const asked: Array<unknown> = []
    const renderer = Context.make(DocumentRenderer.DocumentRenderer, {
      render: (given, document) =>
        Effect.sync(() => {
          asked.push([given, document])
          return new Uint8Array([37, 80, 68, 70])
        })
    })
    const drafted = await call("getInvoicePdf", renderer)
    const sent = await call("getQuotePdf", renderer)
    expect(asked).toEqual([
      [settings, { kind: "invoice", invoice }],
      [settings, { kind: "quote", quote, buyer }]
    ])
    for (const [exit, name] of [
      [drafted, `DRAFT-${ID}.pdf`],
      [sent, "Q2026-0007.pdf"]
    ] as const) {
      expect(Exit.isSuccess(exit)).toBe(true)
      const reply = (exit as Exit.Success<any, never>).value
      expect(reply.status).toBe(200)
      expect([...reply.bytes]).toEqual([37, 80, 68, 70])
      expect(reply.headers).toEqual({
        "content-type": "application/pdf",
        "content-disposition": `inline; filename="${name}"`
      })
    }
  })
})
