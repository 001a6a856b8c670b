/** `GET /admin/v1/organisations/{id}/export` and `POST /admin/v1/organisations/import`, through the real server. */
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, startServer, type TestServer } from "../support/server.js"
import { storages } from "../support/storages.js"

const NDJSON = { "content-type": "application/x-ndjson" }

const exportOf = (server: TestServer, id: string, query = "") =>
  fetch(`${server.url}/admin/v1/organisations/${id}/export${query}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` }
  })

const importInto = (server: TestServer, body: string) =>
  server.admin.request("POST", "/organisations/import", { raw: body, headers: NDJSON })

const withoutTime = (text: string) => text.replace(/"exported_at":"[^"]*"/, "")

for (const storage of storages) {
  describe(`organisation export and import [${storage.name}]`, () => {
    let source: TestServer | undefined
    let target: TestServer | undefined
    beforeAll(async () => {
      source = await startServer(storage.fresh())
      target = await startServer(storage.fresh())
    })
    afterAll(async () => {
      await source?.close()
      await target?.close()
    })

    it("carries an organisation to another server whole: its key works there, and a second export is the same", async () => {
      const { organisation, client, key } = await source!.tenant()
      const company = await client.post("/companies", { name: "Acme" })
      const contact = await client.post("/contacts", {
        first_name: "Ada",
        email: "ada@example.test",
        company_id: company.body.id
      })
      expect(contact.status).toBe(201)
      const hook = await client.post("/hooks", {
        target_url: "https://hooks.example.test/in",
        events: ["contact.created"]
      })
      expect(hook.status).toBe(201)

      const exported = await exportOf(source!, organisation.id)
      expect(exported.status).toBe(200)
      expect(exported.headers.get("content-type")).toBe("application/x-ndjson")
      const text = await exported.text()
      const lines = text.trimEnd().split("\n")
      expect(JSON.parse(lines[0]!)).toMatchObject({
        format: "crm-organisation-export",
        version: 1,
        organisation_id: organisation.id,
        secrets: false
      })
      expect(JSON.parse(lines.at(-1)!)).toEqual({ type: "end", items: lines.length - 2 })
      expect(text).not.toContain(hook.body.secret)
      const withSecrets = await (await exportOf(source!, organisation.id, "?include_secrets=true")).text()
      expect(withSecrets).toContain(hook.body.secret)

      const imported = await importInto(target!, withSecrets)
      expect(imported.status).toBe(201)
      expect(imported.body).toMatchObject({ organisation_id: organisation.id, items: lines.length - 2 })
      const moved = target!.as(key)
      const read = await moved.get(`/contacts/${contact.body.id}`)
      expect(read.status).toBe(200)
      expect(read.body).toEqual(contact.body)
      const again = await (await exportOf(target!, organisation.id, "?include_secrets=true")).text()
      expect(withoutTime(again)).toBe(withoutTime(withSecrets))

      const twice = await importInto(target!, withSecrets)
      expect(twice.status).toBe(409)
      expect(twice.body.error).toBe("organisation_exists")
    })

    it("refuses a bad line with 422 naming it and keeps nothing", async () => {
      const { organisation, client } = await source!.tenant()
      await client.post("/contacts", { first_name: "Bo" })
      const lines = (await (await exportOf(source!, organisation.id)).text()).trimEnd().split("\n")
      lines.splice(2, 0, '{"type":"contacts","row":{"id":"not-a-uuid"}}')
      const refused = await importInto(target!, lines.join("\n"))
      expect(refused.status).toBe(422)
      expect(refused.body.error).toBe("import_failed")
      expect(refused.body.detail.line).toBe(3)
      const gone = await target!.admin.get(`/organisations/${organisation.id}`)
      expect(gone.status).toBe(404)
    })

    it("answers 404 for an unknown organisation, 415 for a body that is not JSON lines, 401 without the admin token", async () => {
      expect((await exportOf(source!, crypto.randomUUID())).status).toBe(404)
      const json = await source!.admin.request("POST", "/organisations/import", {
        raw: "{}",
        headers: { "content-type": "application/json" }
      })
      expect(json.status).toBe(415)
      const anonymous = await fetch(`${source!.url}/admin/v1/organisations/import`, {
        method: "POST",
        headers: NDJSON,
        body: ""
      })
      expect(anonymous.status).toBe(401)
    })

    it("refuses an import at its first line while the body still arrives, and the connection serves the next request", async () => {
      // One keep-alive connection by hand: a client's pool would hide a reset behind a new socket.
      const body = '{"not":"a header"}\n'.repeat(200_000)
      const { hostname, port } = new URL(source!.url)
      const socket = connect(Number(port), hostname)
      let received = ""
      socket.setEncoding("utf8")
      socket.on("data", (chunk: string) => {
        received += chunk
      })
      const closed = new Promise<string | undefined>((resolve) => {
        socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code))
        socket.on("close", () => resolve(undefined))
      })
      const until = async (count: number) => {
        while ((received.match(/HTTP\/1\.1 /g) ?? []).length < count) await new Promise((r) => setTimeout(r, 10))
      }
      const request = (contentType: string, payload: string) =>
        `POST /admin/v1/organisations/import HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\n` +
        `content-type: ${contentType}\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`
      socket.write(request("application/x-ndjson", body))
      await until(1)
      expect(received).toMatch(/^HTTP\/1\.1 422 /)
      socket.write(request("text/plain", "{}"))
      await until(2)
      expect(received.slice(received.lastIndexOf("HTTP/1.1 "))).toMatch(/^HTTP\/1\.1 415 /)
      socket.end()
      expect(await closed).toBeUndefined()
    })
  })
}
