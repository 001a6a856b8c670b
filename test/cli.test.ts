/**
 * `crm`, the command line (examples/server/src/cli.ts), from its sources: the commands and options
 * it parses, what it sends the admin API and prints, and its exit codes.
 */
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, startServer, type TestServer } from "./support/server.js"
import { RUN_SOURCES } from "./support/sources.js"
import { memory } from "./support/storages.js"

const root = join(import.meta.dirname, "..")
// What bin/crm.js does with the built file, on the TypeScript source.
const ENTRY = `const { main } = await import(${JSON.stringify(join(root, "examples/server/src/cli.ts"))}); main(process.argv.slice(1))`

interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

let server: TestServer
const crm = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}): Promise<Ran> =>
  new Promise((done) => {
    const environment: Record<string, string | undefined> = {
      PATH: process.env.PATH ?? "",
      CRM_URL: server.url,
      CRM_ADMIN_TOKEN: ADMIN_TOKEN,
      CRM_LOG_LEVEL: "silent",
      NO_COLOR: "1",
      ...env
    }
    execFile(
      process.execPath,
      [...RUN_SOURCES, "--input-type=module", "-e", ENTRY, "--", ...args],
      {
        cwd: root,
        env: Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== undefined))
      },
      (error, stdout, stderr) => done({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })
    )
  })

describe("crm, the command line", () => {
  beforeAll(async () => {
    server = await startServer(memory.fresh())
  })
  afterAll(() => server?.close())

  it("with no command or --help, describes every command and the environment it reads", async () => {
    const [bare, help] = await Promise.all([crm([]), crm(["--help"])])
    for (const ran of [bare, help]) {
      expect(ran.code).toBe(0)
      for (const command of ["serve", "migrate", "openapi", "org create", "key create", "rates import", "quote send"]) {
        expect(ran.stdout).toContain(command)
      }
      expect(ran.stdout).toContain("CRM_ADMIN_TOKEN")
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

    const [key, shown] = await Promise.all([
      crm(["key", "create", org.id, "--scopes", "read, write", "--name", "ci", "--allowed-ips", "10.0.0.0/8"]),
      crm(["org", "show", org.id])
    ])
    expect(key.code, key.stderr).toBe(0)
    expect(JSON.parse(key.stdout)).toMatchObject({ name: "ci", scopes: ["read", "write"], allowed_ips: ["10.0.0.0/8"] })
    expect(shown.code, shown.stderr).toBe(0)
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: org.id, name: "Acme" })

    const revoked = await crm(["key", "revoke", JSON.parse(key.stdout).id])
    expect(revoked.code, revoked.stderr).toBe(0)
  })

  it("prints what the server refused and exits 1", async () => {
    const missing = await crm(["quote", "send", crypto.randomUUID()])
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: "not_found" })
    expect(missing.stderr).toContain("the server answered 404")
  })

  it("refuses a command it cannot parse, before calling anyone, with exit code 1", async () => {
    const runs = await Promise.all([
      crm(["key", "create"]),
      crm(["rates", "import", "--format", "xml", join(root, "package.json")]),
      crm(["org", "create"]),
      crm(["nonsense"])
    ])
    for (const ran of runs) {
      expect(ran.code).toBe(1)
      expect(ran.stdout).not.toContain('"error"')
    }
  })

  it("says so when CRM_ADMIN_TOKEN is not set", async () => {
    const ran = await crm(["org", "show", crypto.randomUUID()], { CRM_ADMIN_TOKEN: undefined })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toContain("set CRM_ADMIN_TOKEN")
  })
})
