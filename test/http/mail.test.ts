/**
 * The mail outbox worker inside the real server: without SMTP the development transport records
 * each shipping mail as delivered; with SMTP (a tiny local server) it is handed over, and a refused
 * one stays visible in the admin outbox with its attempt and error, queued for a retry.
 */
import * as Redacted from "effect/Redacted"
import { afterAll, expect, it } from "vitest"
import { shipTo, TRACKING } from "../support/orders.js"
import type { TestServer } from "../support/server.js"
import { startSmtpServer } from "../support/smtpServer.js"
import { onEveryStore } from "../support/suite.js"

const smtp = await startSmtpServer((recipient) => recipient.startsWith("bounce"))
afterAll(() => smtp.close())

/** Reads the outbox until `done` holds (the worker runs on its own schedule), at most a few seconds. */
const outboxWhen = async (
  server: () => TestServer,
  organisationId: string,
  done: (mail: Array<any>) => boolean
): Promise<Array<any>> => {
  for (let round = 0; ; round++) {
    const page = await server().admin.get(`/organisations/${organisationId}/mail`)
    expect(page.status).toBe(200)
    if (done(page.body.data) || round === 400) return page.body.data
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

onEveryStore(
  "mail worker without SMTP",
  (server) => {
    it("records the shipping mail as delivered", async () => {
      const { organisation, client } = await server().tenant()
      const order = await shipTo(client, "dev@example.com")
      const [mail] = await outboxWhen(server, organisation.id, (rows) => rows[0]?.status === "sent")
      expect(mail).toMatchObject({ to: "dev@example.com", status: "sent", attempts: 1, last_error: null })
      expect(mail.subject).toContain(order.order_number)
      expect(mail.sent_at).not.toBeNull()
      expect(smtp.received.filter((m) => m.to.includes("dev@example.com"))).toEqual([])
    })
  },
  { mail: { every: "20 millis" } }
)

onEveryStore(
  "mail worker over SMTP",
  (server) => {
    it("hands the shipping mail to the SMTP server and marks it sent", async () => {
      const { organisation, client } = await server().tenant()
      const email = `buyer-${crypto.randomUUID()}@example.com`
      const order = await shipTo(client, email)
      const [mail] = await outboxWhen(server, organisation.id, (rows) => rows[0]?.status === "sent")
      expect(mail).toMatchObject({ to: email, status: "sent", attempts: 1 })
      const [received, ...more] = smtp.received.filter((m) => m.to.includes(email))
      expect(more).toEqual([])
      expect(received!.from).toBe("shop@example.com")
      expect(received!.data).toContain(order.order_number)
      expect(received!.data).toContain(TRACKING)
    })

    it("keeps a refused mail visible: queued for a later retry, with its attempt and the server's error", async () => {
      const { organisation, client } = await server().tenant()
      await shipTo(client, "bounce@example.com")
      const [mail] = await outboxWhen(server, organisation.id, (rows) => rows[0]?.last_error != null)
      expect(mail).toMatchObject({ to: "bounce@example.com", status: "queued", attempts: 1, sent_at: null })
      expect(mail.last_error).toContain("550")
      expect(Date.parse(mail.next_attempt_at)).toBeGreaterThan(Date.parse(mail.created_at))
    })
  },
  { mail: { smtp: { url: Redacted.make(smtp.url), from: "shop@example.com" }, every: "20 millis" } }
)
