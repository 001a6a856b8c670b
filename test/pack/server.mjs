// The built server as `npm start` runs it (examples/server/bin/crm.js, its bundle and the chunks it
// loads when asked): it serves the REST and admin APIs, the metrics on their own port and MCP, and
// its command line loads the parser's chunk. The suite runs the sources; only this runs the build.
// `node test/pack/server.mjs`, from test/pack/run.sh.
import { execFileSync, spawn } from "node:child_process"
import { once } from "node:events"
import { createServer } from "node:net"

const bin = new URL("../../examples/server/bin/crm.js", import.meta.url).pathname

const freePort = async () => {
  const probe = createServer().listen(0, "127.0.0.1")
  await once(probe, "listening")
  const { port } = probe.address()
  probe.close()
  return port
}

const check = (what, ok) => {
  if (!ok) throw new Error(`built server: ${what}`)
}

const [port, metricsPort] = [await freePort(), await freePort()]
const base = `http://127.0.0.1:${port}`
const env = {
  ...process.env,
  PORT: String(port),
  CRM_METRICS_PORT: String(metricsPort),
  CRM_STORAGE: "memory",
  CRM_ADMIN_TOKEN: "pack",
  CRM_LOG_LEVEL: "warn"
}
const server = spawn(process.execPath, [bin, "serve"], { env, stdio: ["ignore", "inherit", "inherit"] })
try {
  for (let tries = 0; ; tries++) {
    const ready = await fetch(`${base}/healthz`).then(
      (response) => response.ok,
      () => false
    )
    if (ready) break
    check("answers /healthz within 10 s", tries < 200)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const admin = (path, body) =>
    fetch(`${base}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: "Bearer pack", "content-type": "application/json" },
      body: JSON.stringify(body)
    }).then((response) => response.json())
  const org = await admin("/organisations", { name: "Pack" })
  const { key } = await admin(`/organisations/${org.id}/keys`, { scopes: ["read", "write", "invoices:write"] })
  const api = (path, init = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers }
    })
  const created = await api("/api/v1/contacts", {
    method: "POST",
    body: JSON.stringify({ first_name: "Ada", email: "ada@example.com" })
  })
  check(`creates a contact (${created.status})`, created.status === 201)
  // Rendered by the bundle's PDF worker (dist/pdfWorker.js).
  const invoice = await api("/api/v1/invoices", {
    method: "POST",
    body: JSON.stringify({ items: [{ name: "Work", quantity: 1, unit_price: 10, vat_rate: 21 }] })
  }).then((response) => response.json())
  const pdf = await api(`/api/v1/invoices/${invoice.id}/pdf`)
  const pdfBytes = Buffer.from(await pdf.arrayBuffer())
  check(`renders an invoice PDF (${pdf.status})`, pdf.ok && pdfBytes.subarray(0, 5).toString("latin1") === "%PDF-")
  // The pages, from @crm/pages's build (dist/admin/, dist/settings/) and the Redoc installed beside the server.
  for (const name of ["admin", "settings"]) {
    const page = await fetch(`${base}/${name}`)
    const html = await page.text()
    const policy = page.headers.get("content-security-policy") ?? ""
    check(
      `serves /${name} under a policy that allows nothing from elsewhere (${page.status}, ${policy})`,
      page.ok &&
        policy.startsWith("default-src 'none'") &&
        policy.includes("connect-src 'self'") &&
        !/https?:|\*/.test(policy)
    )
    const [script, sheet] = await Promise.all(
      [/src="(\/[a-z]+\/[a-z]+\.js\?v=[^"]+)"/, /href="(\/[a-z]+\/[a-z]+\.css\?v=[^"]+)"/].map((pattern) => {
        const url = pattern.exec(html)?.[1]
        return url?.startsWith(`/${name}/`) ? fetch(`${base}${url}`) : undefined
      })
    )
    check(
      `serves /${name}'s script and style sheet (${script?.status}, ${sheet?.status})`,
      script?.ok === true &&
        script.headers.get("content-type")?.startsWith("text/javascript") === true &&
        sheet?.ok === true &&
        sheet.headers.get("content-type")?.startsWith("text/css") === true
    )
  }
  const docs = await fetch(`${base}/docs`)
  check(`serves /docs with Redoc (${docs.status})`, docs.ok && (await docs.text()).includes("redoc.standalone.js"))
  const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
  check(
    `serves the metrics (${metrics.status})`,
    metrics.ok && (await metrics.text()).includes("crm_http_requests_total")
  )
  const tools = await api("/api/mcp", {
    method: "POST",
    headers: { accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
  }).then((response) => response.json())
  check("lists the MCP tools", tools.result?.tools?.length > 0)
  // The authorization server, whose provider is a file of its own (dist/oauthProvider.js), loaded now.
  const unauthorized = await fetch(`${base}/api/mcp`, { method: "POST" })
  check(
    "names its protected resource metadata in a 401 of /api/mcp",
    unauthorized.status === 401 &&
      unauthorized.headers.get("www-authenticate")?.includes("/.well-known/oauth-protected-resource/api/mcp")
  )
  const registered = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "pack",
      redirect_uris: ["http://127.0.0.1:9/callback"],
      token_endpoint_auth_method: "none"
    })
  })
  check(`registers an OAuth client (${registered.status})`, registered.status === 201)
  const metadata = await fetch(`${base}/.well-known/oauth-authorization-server`).then((response) => response.json())
  check("serves the authorization server's metadata", metadata.registration_endpoint === `${base}/oauth/register`)
  const help = execFileSync(process.execPath, [bin, "--help"], { env, encoding: "utf8" })
  check("prints its help", help.includes("org create"))
  JSON.parse(execFileSync(process.execPath, [bin, "openapi"], { env, encoding: "utf8" }))
} finally {
  server.kill("SIGTERM")
}
console.log(
  "pack: the built server served REST, admin, a PDF, the pages (/admin, /settings, /docs), metrics, MCP and its authorization server, and its command line ran"
)
