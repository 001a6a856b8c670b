/**
 * PostgreSQL taken away from under a running server, through the real adapter: the server reaches
 * its database through a TCP proxy that the test closes (connections refused and cut), turns into
 * a black hole (connections taken, never answered), or the database stops taking connections.
 * The shared PostgreSQL server itself is never stopped.
 */
import { connect, createServer, type Server, type Socket } from "node:net"
import * as StoragePg from "@crm/storage-pg"
import * as Logger from "effect/Logger"
import pg from "pg"
import { afterAll, afterEach, beforeAll, expect, it } from "vitest"
import { createServerDatabase, describeOnServer, pgServerUrl } from "../support/pgServer.js"
import { checkedFetch } from "../support/responseCheck.js"
import { startServer, type TestServer } from "../support/server.js"

/** A TCP proxy to the database server that can refuse, cut, or swallow connections. */
const proxyTo = async (target: URL) => {
  const open = new Set<Socket>()
  const swallowed = new Set<Socket>()
  let swallow = false
  const track = (socket: Socket, among: Set<Socket>) => {
    among.add(socket)
    socket.on("close", () => among.delete(socket))
    socket.on("error", () => {})
  }
  const listening = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer((client) => {
        if (swallow) return track(client, swallowed)
        track(client, open)
        const upstream = connect(Number(target.port || 5432), target.hostname)
        track(upstream, open)
        client.pipe(upstream).pipe(client)
        // A side reset (no end to pipe on) takes the other down too, as a direct connection would.
        client.on("close", () => upstream.destroy())
        upstream.on("close", () => client.destroy())
      })
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => resolve(server))
    })
  let server: Server | undefined = await listening(0)
  const port = (server.address() as { port: number }).port
  const cut = () => {
    for (const socket of [...open, ...swallowed]) socket.destroy()
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      const closing = server
      server = undefined
      if (closing === undefined) return resolve()
      closing.close(() => resolve())
      cut()
    })
  return {
    port,
    /** Refused from now on; every open connection is cut. */
    down: stop,
    /** Connections are taken and never answered; every open connection is cut. */
    blackHole: async () => {
      cut()
      swallow = true
      server ??= await listening(port)
    },
    /** Forwarding again; the connections it swallowed are closed, the ones it forwards kept. */
    up: async () => {
      swallow = false
      for (const socket of swallowed) socket.destroy()
      server ??= await listening(port)
    },
    close: stop
  }
}

interface Line {
  readonly level: string
  readonly text: string
}

describeOnServer("PostgreSQL out of reach of a running server", () => {
  let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
  let proxy: Awaited<ReturnType<typeof proxyTo>> | undefined
  let server: TestServer | undefined
  const lines: Array<Line> = []
  const logged = (level: string, fragment: string) =>
    lines.filter((line) => line.level === level && line.text.startsWith(fragment))
  const get = (path: string) => checkedFetch(`${server!.url}${path}`)

  beforeAll(async () => {
    database = await createServerDatabase()
    proxy = await proxyTo(new URL(database.url))
    const proxied = new URL(database.url)
    proxied.host = `127.0.0.1:${proxy.port}`
    server = await startServer(StoragePg.layerServer({ url: proxied.toString() }), {
      logger: Logger.make(({ logLevel, message }) => {
        const parts = Array.isArray(message) ? message : [message]
        lines.push({
          level: logLevel.label,
          text: parts.map((part) => (typeof part === "string" ? part : JSON.stringify(part))).join(" ")
        })
      })
    })
  })
  // A test that fails half-way leaves the next one a database it can reach.
  afterEach(async () => {
    await proxy?.up()
  })
  afterAll(async () => {
    await server?.close()
    await proxy?.close()
    await database?.drop()
  })

  it("answers 503 while the server refuses connections, keeps no idempotency key, and recovers by itself", async () => {
    const { client } = await server!.tenant()
    expect((await client.post("/contacts", { first_name: "Before" })).status).toBe(201)
    lines.length = 0

    await proxy!.down()
    const refused = [
      await client.get("/contacts"),
      await client.post("/contacts", { first_name: "During" }, { "idempotency-key": "outage-1" }),
      await client.get("/me"),
      ...(await Promise.all(Array.from({ length: 4 }, () => client.get("/contacts"))))
    ]
    for (const answer of refused) {
      expect(answer.status, answer.text).toBe(503)
      expect(answer.headers.get("retry-after")).toBe("5")
      expect(answer.body).toMatchObject({
        error: "service_unavailable",
        request_id: answer.headers.get("x-request-id")
      })
    }
    const notReady = await get("/readyz")
    expect(notReady.status).toBe(503)
    expect(notReady.headers.get("retry-after")).toBe("5")
    expect((await get("/healthz")).status).toBe(200)
    const began = logged("WARN", "the database cannot be reached")
    expect(began).toHaveLength(1)
    expect(began[0]!.text).toMatch(/ECONNREFUSED|Connection terminated|ECONNRESET|EPIPE/)
    expect(logged("ERROR", "request failed")).toEqual([])

    await proxy!.up()
    expect((await get("/readyz")).status).toBe(200)
    const first = await client.post("/contacts", { first_name: "During" }, { "idempotency-key": "outage-1" })
    expect(first.status).toBe(201)
    expect(first.headers.get("idempotency-replayed")).toBeNull()
    const again = await client.post("/contacts", { first_name: "During" }, { "idempotency-key": "outage-1" })
    expect(again.headers.get("idempotency-replayed")).toBe("true")
    expect((await client.get("/contacts?q=During")).body.data).toHaveLength(1)
    expect(logged("INFO", "the database answers again")).toHaveLength(1)
    expect(logged("WARN", "the database cannot be reached")).toHaveLength(1)
  })

  it("answers 503 once the connection timeout passes when the server takes connections and never answers", async () => {
    const { client } = await server!.tenant()
    await proxy!.blackHole()
    // More at once than the pool holds (10): whatever it still holds from before is gone at the
    // first statement, and at least one of these waits on a connection that never answers.
    const stalled = await Promise.all(Array.from({ length: 11 }, () => get("/readyz")))
    for (const answer of stalled) {
      expect(answer.status).toBe(503)
      expect(answer.headers.get("retry-after")).toBe("5")
    }
    await proxy!.up()
    expect((await get("/readyz")).status).toBe(200)
    expect((await client.get("/contacts")).status).toBe(200)
  })

  it("answers 503 while the database takes no connections and its sessions are ended", async () => {
    const { client } = await server!.tenant()
    const admin = new pg.Client({ connectionString: pgServerUrl() })
    await admin.connect()
    const name = database!.name
    try {
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`)
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name])
      const refused = await client.get("/contacts")
      expect(refused.status, refused.text).toBe(503)
      expect((await client.post("/contacts", { first_name: "Shut" })).status).toBe(503)
      expect((await get("/readyz")).status).toBe(503)
    } finally {
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`)
      await admin.end()
    }
    expect((await get("/readyz")).status).toBe(200)
    expect((await client.get("/contacts")).status).toBe(200)
  })
})
