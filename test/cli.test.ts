/**
 * `crm`, the command line (examples/server/src/Commands.ts): the commands and options it parses,
 * what it sends the admin API and prints, and its exit codes. The commands run in this process on
 * the environment each case gives (a config provider), against a test server; one case runs the
 * process itself, as `bin/crm.js` does, bundled from the sources. Last, what `crm serve` prints on
 * the first start of an empty store (the server as it composes itself, with its own log).
 */
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { Listener } from "@crm/http"
import { Log, Server, type Storage } from "@crm/server"
import * as StorageMemory from "@crm/storage-memory"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { run } from "../examples/server/src/Commands.js"
import * as StorageSettings from "../examples/server/src/Storage.js"
import { parseCount } from "../examples/server/src/Workers.js"
import { ADMIN_TOKEN, startServer, type TestServer } from "./support/server.js"
import { bundled } from "./support/sources.js"
import { memory } from "./support/storages.js"

const root = join(import.meta.dirname, "..")

interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

let server: TestServer
const PUBLIC_URL = "http://crm.example.test"

/** One command, its console output and the exit code it set (restored afterwards). */
const crm = async (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}): Promise<Ran> => {
  const given = { CRM_URL: server.url, CRM_ADMIN_TOKEN: ADMIN_TOKEN, ...env }
  const config = new Map(Object.entries(given).flatMap(([name, value]) => (value === undefined ? [] : [[name, value]])))
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  const log = vi.spyOn(console, "log").mockImplementation((...parts) => void stdout.push(parts.join(" ")))
  const error = vi.spyOn(console, "error").mockImplementation((...parts) => void stderr.push(parts.join(" ")))
  const exitCode = process.exitCode
  process.exitCode = undefined
  try {
    await Effect.runPromise(run(args).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(config))))
    return { code: Number(process.exitCode ?? 0), stdout: stdout.join("\n"), stderr: stderr.join("\n") }
  } finally {
    log.mockRestore()
    error.mockRestore()
    process.exitCode = exitCode
  }
}

/** `POST /auth/v1/invitations/{token}/accept`, as the settings screen sends it. */
const acceptInvitation = async (base: string, token: string) => {
  const response = await fetch(`${base}/auth/v1/invitations/${token}/accept`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Ada Lovelace", password: "a long enough password" })
  })
  return { status: response.status, body: (await response.json()) as any }
}

describe("crm, the command line", () => {
  beforeAll(async () => {
    // Where links point: a server on port 0 does not know its port until after its services are built.
    server = await startServer(memory.fresh(), { publicUrl: PUBLIC_URL })
  })
  afterAll(() => server?.close())

  it("with no command or --help, describes every command and the environment it reads", async () => {
    for (const ran of [await crm([]), await crm(["--help"])]) {
      expect(ran.code).toBe(0)
      for (const command of [
        "serve",
        "migrate",
        "openapi",
        "org create",
        "org invite",
        "key create",
        "rates import",
        "quote send"
      ]) {
        expect(ran.stdout).toContain(command)
      }
      expect(ran.stdout).toContain("CRM_ADMIN_TOKEN")
      expect(ran.stdout).toContain("CRM_OWNER_EMAIL")
    }
  })

  it("creates an organisation and a key through the admin API, options before or after the id", async () => {
    const settings = join(tmpdir(), `crm-cli-settings-${process.pid}.json`)
    writeFileSync(settings, JSON.stringify({ timezone: "Europe/Prague" }))
    const created = await crm(["org", "create", "--name", "Acme", "--test-mode", "--settings", settings])
    expect(created.code, created.stderr).toBe(0)
    const org = JSON.parse(created.stdout)
    expect(org.name).toBe("Acme")
    expect(org.settings.timezone).toBe("Europe/Prague")
    // Only a test-mode organisation has a clock to move.
    const clock = await crm(["org", "clock", org.id, "--advance-by", "P1D"])
    expect(clock.code, clock.stderr).toBe(0)

    const key = await crm([
      "key",
      "create",
      org.id,
      "--scopes",
      "read, write",
      "--name",
      "ci",
      "--allowed-ips",
      "10.0.0.0/8"
    ])
    expect(key.code, key.stderr).toBe(0)
    expect(JSON.parse(key.stdout)).toMatchObject({ name: "ci", scopes: ["read", "write"], allowed_ips: ["10.0.0.0/8"] })
    const shown = await crm(["org", "show", org.id])
    expect(shown.code, shown.stderr).toBe(0)
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: org.id, name: "Acme" })

    const revoked = await crm(["key", "revoke", JSON.parse(key.stdout).id])
    expect(revoked.code, revoked.stderr).toBe(0)
    expect((await server.as(JSON.parse(key.stdout).key).get("/me")).status).toBe(401)
  })

  it("crm org invite ORG_ID --email E --role R invites through the admin API and prints the invitation with its accept URL, which works", async () => {
    const org = (await server.admin.post("/organisations", { name: "Invited" })).body
    const ran = await crm(["org", "invite", org.id, "--email", " Ada@Example.COM ", "--role", "owner"])
    expect(ran.code, ran.stderr).toBe(0)
    const invitation = JSON.parse(ran.stdout)
    expect(invitation).toMatchObject({
      organisation_id: org.id,
      email: "ada@example.com",
      role: "owner",
      status: "pending"
    })
    // The token is in the fragment, which a browser never sends to a server.
    const token = new RegExp(`^${PUBLIC_URL}/settings#invitation=([A-Za-z0-9_-]{43})$`).exec(invitation.accept_url)?.[1]
    expect(token, invitation.accept_url).toBeDefined()
    const accepted = await acceptInvitation(server.url, token!)
    expect(accepted.status).toBe(200)
    expect(accepted.body.organisations).toEqual([{ id: org.id, name: "Invited", role: "owner" }])

    const again = await crm(["org", "invite", org.id, "--email", "ada@example.com", "--role", "member"])
    expect(again.code).toBe(1)
    expect(JSON.parse(again.stdout)).toMatchObject({ error: "already_member" })
    for (const args of [
      ["org", "invite", org.id, "--email", "bob@example.com", "--role", "boss"],
      ["org", "invite", org.id, "--email", "bob@example.com"],
      ["org", "invite", org.id, "--role", "admin"]
    ]) {
      const refused = await crm(args)
      expect(refused.code, args.join(" ")).toBe(1)
      expect(refused.stdout).not.toContain('"accept_url"')
    }
  })

  it("prints what the server refused and exits 1", async () => {
    const missing = await crm(["quote", "send", crypto.randomUUID()])
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: "not_found" })
    expect(missing.stderr).toContain("the server answered 404")
  })

  it("refuses a command it cannot parse, before calling anyone, with exit code 1", async () => {
    const requests = await server.admin.get("/organisations")
    for (const args of [
      ["key", "create"],
      ["rates", "import", "--format", "xml", join(root, "package.json")],
      ["org", "create"],
      ["nonsense"]
    ]) {
      const ran = await crm(args)
      expect(ran.code, args.join(" ")).toBe(1)
      expect(ran.stdout).not.toContain('"error"')
    }
    // Nothing was created by the refused `org create`.
    expect((await server.admin.get("/organisations")).body).toEqual(requests.body)
  })

  it("says so when CRM_ADMIN_TOKEN is not set", async () => {
    const ran = await crm(["org", "show", crypto.randomUUID()], { CRM_ADMIN_TOKEN: undefined })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toContain("set CRM_ADMIN_TOKEN")
  })

  it("as a process (bin/crm.js's main, bundled from the sources): help exits 0, a command it cannot parse exits 1", async () => {
    const { cli } = await bundled("examples/server", { cli: "src/cli.ts", Commands: "src/Commands.ts" })
    const entry = `const { main } = await import(${JSON.stringify(pathToFileURL(cli).href)}); main(process.argv.slice(1))`
    const process_ = (args: ReadonlyArray<string>) =>
      new Promise<Ran>((done) =>
        execFile(
          process.execPath,
          ["--input-type=module", "-e", entry, "--", ...args],
          { cwd: root, env: { PATH: process.env.PATH ?? "", CRM_LOG_LEVEL: "silent", NO_COLOR: "1" } },
          (error, stdout, stderr) => done({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })
        )
      )
    const [help, refused] = await Promise.all([process_(["--help"]), process_(["key", "create"])])
    expect(help.code, help.stderr).toBe(0)
    expect(help.stdout).toContain("org create")
    expect(refused.code).toBe(1)
  })

  it("crm org export ORG_ID > file and crm org import < file carry an organisation to another server (as a process: standard output and input)", async () => {
    const { cli } = await bundled("examples/server", { cli: "src/cli.ts", Commands: "src/Commands.ts" })
    const entry = `const { main } = await import(${JSON.stringify(pathToFileURL(cli).href)}); main(process.argv.slice(1))`
    const target = await startServer(memory.fresh())
    try {
      const process_ = (url: string, args: ReadonlyArray<string>, input?: string) =>
        new Promise<Ran>((done) => {
          const child = execFile(
            process.execPath,
            ["--input-type=module", "-e", entry, "--", ...args],
            {
              cwd: root,
              env: {
                PATH: process.env.PATH ?? "",
                CRM_LOG_LEVEL: "silent",
                CRM_URL: url,
                CRM_ADMIN_TOKEN: ADMIN_TOKEN
              },
              maxBuffer: 64 * 1024 * 1024
            },
            (error, stdout, stderr) => done({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })
          )
          child.stdin?.end(input ?? "")
        })
      const { organisation, client, key } = await server.tenant()
      const contact = await client.post("/contacts", { first_name: "Ada", email: "ada@example.test" })
      const exported = await process_(server.url, ["org", "export", organisation.id])
      expect(exported.code, exported.stderr).toBe(0)
      expect(JSON.parse(exported.stdout.split("\n")[0]!).organisation_id).toBe(organisation.id)
      const imported = await process_(target.url, ["org", "import"], exported.stdout)
      expect(imported.code, imported.stderr).toBe(0)
      expect(JSON.parse(imported.stdout).organisation_id).toBe(organisation.id)
      expect((await target.as(key).get(`/contacts/${contact.body.id}`)).body).toEqual(contact.body)
      const again = await process_(target.url, ["org", "import"], exported.stdout)
      expect(again.code).toBe(1)
      expect(again.stdout).toContain("organisation_exists")
    } finally {
      await target.close()
    }
  })
})

describe("crm serve on an empty store", () => {
  /** The store, built once: each start of the server below opens it again, as a restart opens its database. */
  const storeScope = Effect.runSync(Scope.make())
  let store: Context.Context<Storage.StoragePorts>
  beforeAll(async () => {
    store = await Effect.runPromise(Layer.buildWithScope(StorageMemory.layer, storeScope))
  })
  afterAll(() => Effect.runPromise(Scope.close(storeScope, Exit.void)))

  /** The server as `crm serve` composes it (bootstrap on), started and stopped; what its log said, as JSON lines. */
  const start = async () => {
    const written: Array<string> = []
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(
      Layer.buildWithScope(
        Server.layer(
          {
            port: 0,
            host: "127.0.0.1",
            adminToken: Option.none(),
            trustedProxies: [],
            bootstrap: true,
            rateLimit: 120,
            publicUrl: "https://crm.example.com/",
            ownerEmail: "Ada@Example.com"
          },
          Layer.succeedContext(store)
        ).pipe(
          Layer.provide(Log.layer({ level: "warn", format: "json", output: { write: (chunk) => written.push(chunk) } }))
        ),
        scope
      )
    )
    const url = `http://127.0.0.1:${Context.get(context, Listener.Address).port}`
    return {
      url,
      lines: () =>
        written
          .join("")
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => JSON.parse(line) as Record<string, string>),
      close: () => Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }

  it("prints the first key and a link that makes its reader the owner, once: a later start prints neither", async () => {
    const first = await start()
    let link: string
    let key: string
    try {
      const lines = first.lines()
      const keyLine = lines.find((line) => line.msg.includes("the key is shown this once"))
      key = /: (mck_[A-Za-z0-9]+)$/.exec(keyLine?.msg ?? "")?.[1] ?? ""
      expect(key, JSON.stringify(lines)).not.toBe("")
      expect(keyLine!.try).toContain("https://crm.example.com/api/v1/me")
      const ownerLine = lines.find((line) => line.msg.includes("as the owner of"))
      expect(ownerLine, JSON.stringify(lines)).toBeDefined()
      expect(ownerLine!.level).toBe("warn")
      expect(ownerLine!.msg).toContain('invited ada@example.com as the owner of "My organisation"')
      link = /(https:\/\/crm\.example\.com\/settings#invitation=[A-Za-z0-9_-]{43})$/.exec(ownerLine!.msg)?.[1] ?? ""
      expect(link, ownerLine!.msg).not.toBe("")
      const me = await fetch(`${first.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } })
      expect(me.status).toBe(200)
    } finally {
      await first.close()
    }

    const later = await start()
    try {
      expect(later.lines().filter((line) => line.msg.includes("shown this once"))).toEqual([])
      // The link of the first start works on the same store, once.
      const token = link.slice(link.indexOf("#invitation=") + "#invitation=".length)
      const accepted = await acceptInvitation(later.url, token)
      expect(accepted.status).toBe(200)
      expect(accepted.body.user.email).toBe("ada@example.com")
      expect(accepted.body.organisations).toEqual([expect.objectContaining({ name: "My organisation", role: "owner" })])
      expect((await acceptInvitation(later.url, token)).status).toBe(410)
    } finally {
      await later.close()
    }
  })

  it("makes its links under CRM_PUBLIC_URL, else under the address it listens on (a wildcard host as localhost)", () => {
    expect(Server.publicUrlOf({ publicUrl: "https://crm.example.com//", host: "0.0.0.0", port: 3000 })).toBe(
      "https://crm.example.com"
    )
    expect(Server.publicUrlOf({ host: "127.0.0.1", port: 3000 })).toBe("http://127.0.0.1:3000")
    expect(Server.publicUrlOf({ host: "0.0.0.0", port: 8080 })).toBe("http://localhost:8080")
    expect(Server.publicUrlOf({ host: "::1", port: 3000 })).toBe("http://[::1]:3000")
  })
})

describe("crm serve --workers N|auto (and CRM_WORKERS)", () => {
  it("takes a whole number from 1 to 1024, or auto for one worker per core (at least one)", () => {
    expect(parseCount("1", 8)).toEqual(Either.right(1))
    expect(parseCount("2", 8)).toEqual(Either.right(2))
    expect(parseCount(" 16 ", 2)).toEqual(Either.right(16))
    expect(parseCount("auto", 8)).toEqual(Either.right(8))
    expect(parseCount("auto", 1)).toEqual(Either.right(1))
    expect(parseCount("auto", 0)).toEqual(Either.right(1))
  })

  it("refuses anything else, naming what it was given", () => {
    for (const text of ["0", "-1", "1.5", "2e1", "0x2", "two", "", "Auto", "02", "1025"]) {
      expect(parseCount(text, 8), text).toEqual(
        Either.left(`workers must be auto or a whole number from 1 to 1024, got "${text}"`)
      )
    }
  })
})

describe("the log's writes", () => {
  it("gathers the lines of GATHER_MS into one write, writes a warning at once with what came before it, and the rest at close", () => {
    vi.useFakeTimers()
    try {
      const writes: Array<string> = []
      const messages = () =>
        writes.map((chunk) =>
          chunk
            .split("\n")
            .filter((line) => line !== "")
            .map((line) => (JSON.parse(line) as { msg: string }).msg)
        )
      const quarter = Effect.sync(() => vi.advanceTimersByTime(Log.GATHER_MS / 4))
      Effect.runSync(
        Effect.gen(function* () {
          yield* Effect.logInfo("a")
          // Lines of several turns of the event loop: one write for all of them, GATHER_MS after the first.
          for (const msg of ["b", "c"]) yield* Effect.zipRight(quarter, Effect.logInfo(msg))
          yield* quarter
          expect(writes).toEqual([])
          yield* quarter
          expect(messages()).toEqual([["a", "b", "c"]])
          yield* Effect.logInfo("d")
          yield* Effect.logWarning("e")
          expect(messages()).toEqual([
            ["a", "b", "c"],
            ["d", "e"]
          ])
          yield* Effect.logInfo("f")
        }).pipe(
          Effect.provide(
            Log.layer({ level: "info", format: "json", output: { write: (chunk: string) => writes.push(chunk) } })
          )
        )
      )
      expect(messages()).toEqual([["a", "b", "c"], ["d", "e"], ["f"]])
      // Nothing is left for a timer to write.
      vi.advanceTimersByTime(Log.GATHER_MS)
      expect(writes).toHaveLength(3)
    } finally {
      vi.useRealTimers()
    }
  })
})

describe("the log of a worker of crm serve --workers N", () => {
  it("names the worker in every line, and writes whole lines at most PIPE_BUF bytes at a time (the workers share one stdout)", async () => {
    const writes: Array<string> = []
    const output = { write: (chunk: string) => writes.push(chunk) }
    await Effect.runPromise(
      Effect.forEach(
        Array.from({ length: 200 }, (_, i) => i),
        (i) => Effect.logInfo(`line ${i} ${"\u00e9".repeat(i % 7 === 0 ? 3000 : 40)}`)
      ).pipe(Effect.provide(Log.layer({ level: "info", format: "json", output, worker: 2 })))
    )
    expect(writes.length).toBeGreaterThan(1)
    for (const chunk of writes) {
      expect(chunk.endsWith("\n")).toBe(true)
      // A line longer than that goes out alone.
      if (chunk.indexOf("\n") !== chunk.length - 1) expect(Buffer.byteLength(chunk)).toBeLessThanOrEqual(4096)
    }
    const lines = writes
      .join("")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.map((line) => line.msg)).toEqual(
      Array.from({ length: 200 }, (_, i) => expect.stringMatching(`^line ${i} `))
    )
    expect(new Set(lines.map((line) => line.worker))).toEqual(new Set([2]))
  })
})

describe("the PostgreSQL settings of crm serve", () => {
  const read = (env: Record<string, string>) =>
    Effect.runSyncExit(
      Effect.withConfigProvider(StorageSettings.StorageConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))
    )

  it("takes the pool size, the standby and its lag bound, with their defaults", () => {
    const defaults = read({})
    expect(Exit.isSuccess(defaults) && defaults.value).toMatchObject({
      poolSize: 10,
      readUrl: Option.none(),
      standbyMaxLagMs: 5000
    })
    const given = read({
      CRM_DATABASE_POOL_SIZE: "3",
      CRM_READ_DATABASE_URL: "postgres://standby/crm",
      CRM_READ_MAX_LAG_MS: "250"
    })
    expect(Exit.isSuccess(given) && given.value).toMatchObject({ poolSize: 3, standbyMaxLagMs: 250 })
    expect(Exit.isSuccess(given) && Option.isSome(given.value.readUrl)).toBe(true)
  })

  it("refuses a pool of no connections and a negative lag bound", () => {
    expect(Exit.isFailure(read({ CRM_DATABASE_POOL_SIZE: "0" }))).toBe(true)
    expect(Exit.isFailure(read({ CRM_READ_MAX_LAG_MS: "-1" }))).toBe(true)
  })
})
