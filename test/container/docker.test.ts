/**
 * The container image (the Dockerfile at the root), built and run. It needs a Docker daemon and the
 * base image present locally: the build pulls nothing else (npm ci needs only the registry), so
 * where the image is missing the suite skips rather than pull it. Without either it skips, saying
 * which is missing.
 */
import { execFile, spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
const BASE_IMAGE = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(join(root, "Dockerfile"), "utf8"))?.[1]

const unavailable = (): string | undefined => {
  const info = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], { encoding: "utf8" })
  if (info.error !== undefined) return "no docker command"
  if (info.status !== 0) return `no Docker daemon answers (docker info: ${info.stderr.trim().split("\n")[0]})`
  if (BASE_IMAGE === undefined) return "the Dockerfile names no ARG NODE_IMAGE"
  const image = spawnSync("docker", ["image", "inspect", BASE_IMAGE], { encoding: "utf8" })
  if (image.status !== 0) return `the base image ${BASE_IMAGE} is not present locally (docker pull ${BASE_IMAGE})`
  return undefined
}

const reason = unavailable()
if (reason !== undefined) console.warn(`container tests skipped: ${reason}`)

const docker = async (...args: ReadonlyArray<string>): Promise<string> =>
  (await promisify(execFile)("docker", args, { cwd: root, maxBuffer: 64 << 20 })).stdout.trim()

const ADMIN_TOKEN = "container-test-admin-token"
const name = `crm-test-${process.pid}-${Date.now()}`

/** Polls `check` until it holds, for at most `ms`. */
const eventually = async (check: () => Promise<boolean>, ms: number, what: string) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await check().catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`${what}: not within ${ms} ms`)
}

describe.skipIf(reason !== undefined)(`the container image${reason ? ` (skipped: ${reason})` : ""}`, () => {
  let base = ""
  let container = ""

  /** A container of the image on the test's volume, published on a free port of the loopback. */
  const start = async () => {
    container = await docker(
      "run",
      "--detach",
      "--publish",
      "127.0.0.1::3000",
      "--volume",
      `${name}:/data`,
      "--env",
      `CRM_ADMIN_TOKEN=${ADMIN_TOKEN}`,
      // The image's HEALTHCHECK command, run every second rather than every 30.
      "--health-interval",
      "1s",
      name
    )
    const published = await docker("port", container, "3000/tcp")
    base = `http://${published.split("\n")[0]}`
    await eventually(async () => (await fetch(`${base}/healthz`)).ok, 60_000, "GET /healthz")
  }

  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${base}/admin/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }
    })

  beforeAll(async () => {
    await docker("build", "--tag", name, ".")
    await docker("volume", "create", name)
    await start()
  }, 1_200_000)

  afterAll(async () => {
    if (container !== "") await docker("rm", "--force", container).catch(() => "")
    await docker("volume", "rm", "--force", name).catch(() => "")
    await docker("image", "rm", "--force", name).catch(() => "")
  }, 120_000)

  it("answers /healthz and the OpenAPI document, and its HEALTHCHECK finds it healthy", async () => {
    const health = await fetch(`${base}/healthz`)
    expect(health.status).toBe(200)
    const document = await fetch(`${base}/api/v1/openapi.json`)
    expect(document.status).toBe(200)
    const body = (await document.json()) as { openapi: string; paths: Record<string, unknown> }
    expect(body.openapi).toMatch(/^3\.1\./)
    expect(Object.keys(body.paths)).toContain("/api/v1/contacts")
    await eventually(
      async () => (await docker("inspect", "--format", "{{.State.Health.Status}}", container)) === "healthy",
      30_000,
      "the HEALTHCHECK"
    )
  })

  it("runs as the unprivileged node user, with the built server and its run-time packages only", async () => {
    expect(await docker("exec", container, "id", "-un")).toBe("node")
    expect(await docker("exec", container, "stat", "--format", "%U", "/data/pglite")).toBe("node")
    // Its data directory started as a copy of the build's migrated template, which `node` could read.
    const { stdout, stderr } = await promisify(execFile)("docker", ["logs", container])
    expect(`${stdout}${stderr}`).toContain("storage: PGlite in /data/pglite")
    expect(`${stdout}${stderr}`).not.toContain("PGlite will run initdb")
    expect((await docker("exec", container, "ls", "/app")).split("\n")).toEqual(["examples", "node_modules"])
    expect((await docker("exec", container, "ls", "/app/examples/server")).split("\n")).toEqual([
      "bin",
      "dist",
      "package.json"
    ])
    const modules = (await docker("exec", container, "ls", "/app/node_modules")).split("\n")
    expect(modules).toEqual(expect.arrayContaining(["pdfkit", "pg", "redoc", "dejavu-fonts-ttf", "@electric-sql"]))
    for (const tool of ["tsup", "typescript", "vitest", "tsx", "effect", "zod"]) expect(modules).not.toContain(tool)
  })

  it("serves what it reads at run time: Redoc for /docs, the /admin page, a quote's PDF", async () => {
    const redoc = await fetch(`${base}/docs/redoc.standalone.js`)
    expect(redoc.status).toBe(200)
    expect((await redoc.text()).length).toBeGreaterThan(100_000)
    expect((await fetch(`${base}/admin`)).status).toBe(200)

    const organisation = (await (await admin("/organisations", { method: "POST", body: '{"name":"Box"}' })).json()) as {
      id: string
    }
    const created = await admin(`/organisations/${organisation.id}/keys`, {
      method: "POST",
      body: JSON.stringify({ scopes: ["read", "write", "quotes:write"] })
    })
    const { key } = (await created.json()) as { key: string }
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
    const quote = await fetch(`${base}/api/v1/quotes`, {
      method: "POST",
      headers,
      body: JSON.stringify({ items: [{ name: "Žluťoučký kůň", quantity: 1, unit_price: 100, vat_rate: 21 }] })
    })
    expect(quote.status).toBe(201)
    const { id } = (await quote.json()) as { id: string }
    const pdf = await fetch(`${base}/api/v1/quotes/${id}/pdf`, { headers })
    expect(pdf.status).toBe(200)
    expect(pdf.headers.get("content-type")).toBe("application/pdf")
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString()
    ).toBe("%PDF-")
  })

  it("keeps PGlite's data in the volume, for the next container", async () => {
    const made = await admin("/organisations", { method: "POST", body: '{"name":"Kept"}' })
    expect(made.status).toBe(201)
    const { id } = (await made.json()) as { id: string }
    // Stopped as an orchestrator stops it (SIGTERM to node as PID 1), so PGlite closes its files.
    await docker("stop", "--time", "30", container)
    await docker("rm", container)
    container = ""
    await start()
    expect((await admin(`/organisations/${id}`)).status).toBe(200)
  }, 120_000)
})
