/**
 * PDFs render in worker threads (issue 34): several at once all come out whole and alike, and a
 * cheap request is answered while they render; a worker that dies fails its jobs, never hangs them.
 */
import { PdfWorkers } from "@crm/pdf"
import { describe, expect, it } from "vitest"
import type { TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

/** A draft invoice of `lines` lines: a PDF that takes a while to lay out. */
const longInvoice = async (server: TestServer, lines: number) => {
  const { client, key } = await server.tenant({ scopes: ["read", "write", "invoices:write"] })
  const items = Array.from({ length: lines }, (_, i) => ({
    name: `Line ${i + 1}: consulting on the rollout, phase ${i % 7}`,
    quantity: 1 + (i % 5),
    unit_price: 100 + i,
    vat_rate: i % 2 === 0 ? 21 : 12
  }))
  const invoice = await client.post("/invoices", { items })
  expect(invoice.status, invoice.text).toBe(201)
  const url = `${server.url}/api/v1/invoices/${invoice.body.id}/pdf`
  const pdf = async () => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } })
    expect(response.status).toBe(200)
    return Buffer.from(await response.arrayBuffer())
  }
  return pdf
}

onEveryStore("PDFs in worker threads", (server) => {
  it("renders several PDFs at once, each whole and byte for byte the one rendered alone", async () => {
    const pdf = await longInvoice(server(), 10)
    const alone = await pdf()
    expect(alone.subarray(0, 5).toString("latin1")).toBe("%PDF-")
    const together = await Promise.all(Array.from({ length: 4 }, pdf))
    for (const bytes of together) expect(bytes.equals(alone)).toBe(true)
  })

  it("answers a health check while PDFs render, before the last of them", async () => {
    const pdf = await longInvoice(server(), 30)
    await pdf()
    const order: Array<string> = []
    const pdfs = Array.from({ length: 4 }, () => pdf().then(() => order.push("pdf")))
    const health = fetch(`${server().url}/healthz`).then((response) => {
      expect(response.status).toBe(200)
      order.push("health")
    })
    await Promise.all([...pdfs, health])
    // On the event loop, each PDF held every other request until it was done.
    expect(order.at(-1)).toBe("pdf")
  })
})

/** A worker entry that answers two bytes, or dies on the job "die". */
const FAKE = new URL(
  `data:text/javascript,${encodeURIComponent(`
    import { parentPort } from "node:worker_threads"
    parentPort.on("message", ({ id, job }) => {
      if (job === "die") process.exit(3)
      const bytes = new Uint8Array([1, 2]).buffer
      parentPort.postMessage({ id, bytes }, [bytes])
    })`)}`
)

describe("a pool of PDF workers", () => {
  it("fails the jobs of a worker that dies, and starts another for the next job", async () => {
    const pool = PdfWorkers.make(FAKE, undefined, 1)
    try {
      expect([...(await pool.run("render"))]).toEqual([1, 2])
      await expect(pool.run("die")).rejects.toThrow("the PDF renderer stopped (exit code 3)")
      expect([...(await pool.run("render"))]).toEqual([1, 2])
    } finally {
      await pool.close()
    }
  })

  it("fails a job still running when the pool closes", async () => {
    const pool = PdfWorkers.make(
      new URL(`data:text/javascript,${encodeURIComponent("setInterval(() => {}, 1000)")}`),
      undefined,
      1
    )
    const pending = pool.run("never answered")
    await pool.close()
    await expect(pending).rejects.toThrow("the PDF renderer stopped")
  })
})
