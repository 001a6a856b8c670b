/**
 * The pages beside the APIs. `/docs` is the API reference: Redoc's standalone bundle over our
 * own OpenAPI document (`/api/v1/openapi.json`). `/admin` is the page of whoever holds the admin
 * token: one HTML page, one ES module and one style sheet that call `/admin/v1` and nothing else.
 * `/settings` is an organisation's people's: the same three files calling `/auth/v1` and
 * `/settings/v1` with the session cookie. Each module is `src/<page>/` (TypeScript calling the
 * APIs through `@crm/client`, with what both pages share in `src/shared/`), bundled for the
 * browser by the package's build (see internal/pageFiles.ts).
 *
 * They are answered in front of the API pipeline (`around`): no key, no rate budget, no request
 * id; what is not a page costs an API request one map lookup. Nothing is read at start: each file
 * is read, compressed and kept at its first request (Redoc's bundle is a megabyte). Everything is
 * served from this origin, under a Content-Security-Policy that allows nothing else.
 *
 * Redoc is an optional peer dependency (its package brings some 85 MB with it): it is looked for
 * from the application's module (`PagesOptions.resolveFrom`), and where it is missing `/docs`
 * says so and links the OpenAPI document.
 */
import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"
import type { IncomingMessage } from "node:http"
import { createRequire } from "node:module"
import { promisify } from "node:util"
import { gzip } from "node:zlib"
import { Access, Events, People } from "@crm/core"
import { Edge } from "@crm/http"
import * as Effect from "effect/Effect"
import { type PageName, readPageFile } from "./internal/pageFiles.js"

export interface PagesOptions {
  /**
   * Where Redoc is resolved from: a module URL of the application (its `import.meta.url`), whose
   * node_modules hold the optional `redoc` package.
   */
  readonly resolveFrom: string | URL
}

/** A page or one of its files, answering GET and HEAD. */
export type Page = (incoming: IncomingMessage) => Effect.Effect<Edge.Answer>
export type Pages = ReadonlyMap<string, Page>

export const DOCS_PATH = "/docs"
export const ADMIN_PATH = "/admin"
export const SETTINGS_PATH = "/settings"
const REDOC_PATH = "/docs/redoc.standalone.js"

/**
 * Redoc renders with styled-components, which writes `<style>` elements (so inline styles), and
 * runs its search index in a worker made from a `blob:` URL; its icons are inline SVG or `data:`
 * images (the section links' icon). It needs nothing else: no fonts, and it fetches only the
 * OpenAPI document.
 */
export const DOCS_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/**
 * The one thing Redoc's bundle loads from elsewhere: Redocly's logo beside "API docs by Redocly"
 * at the foot of the menu, from their CDN. Emptied, the image fails at once and hides itself
 * (Redoc's own error handler); the link stays.
 */
const REDOCLY_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"'

/** The admin page: its own script and style sheet, and fetch to its own origin. No form is ever submitted by the browser. */
export const ADMIN_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/**
 * The settings page is made like the admin page and allowed the same. Its session cookie is
 * `SameSite=Lax` and its writes need the CSRF token; `frame-ancestors 'none'` keeps it out of
 * another site's frame, where a click could be borrowed.
 */
export const SETTINGS_POLICY = ADMIN_POLICY

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin"
}

/** A file as it is served: its text, the same compressed, and how long a browser may keep it. */
interface Asset {
  readonly type: string
  readonly text: string
  readonly gzipped: Buffer
  /** Names this content: under a URL that carries it (`?v=`), a browser may keep it for good. Pages have none. */
  readonly version: string | undefined
  readonly policy?: string
}

const HTML = "text/html; charset=utf-8"
const IMMUTABLE = "public, max-age=31536000, immutable"

const compress = promisify(gzip)

const asset = async (type: string, text: string, version: string | undefined, policy?: string): Promise<Asset> => ({
  type,
  text,
  gzipped: await compress(text),
  version,
  ...(policy === undefined ? {} : { policy })
})

const hashOf = (text: string) => createHash("sha256").update(text).digest("base64url").slice(0, 16)

/** Made at its first use and kept; a failure (a file missing from the package) is kept too. */
const once = <A>(make: () => Promise<A>): (() => Promise<A>) => {
  let made: Promise<A> | undefined
  return () => (made ??= make())
}

const acceptsGzip = (incoming: IncomingMessage) => /\bgzip\b/.test(String(incoming.headers["accept-encoding"] ?? ""))

/**
 * The answer for a file. Under its versioned URL (`?v=` its version) it may be kept for a year;
 * anything else (the HTML pages, an old or missing version) is asked for again each time.
 */
const serve = (incoming: IncomingMessage, file: Asset): Edge.Answer => {
  const url = incoming.url ?? "/"
  const query = url.indexOf("?")
  const versioned =
    file.version !== undefined && query !== -1 && new URLSearchParams(url.slice(query + 1)).get("v") === file.version
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    "content-type": file.type,
    "cache-control": versioned ? IMMUTABLE : "no-cache",
    vary: "accept-encoding",
    ...(file.policy === undefined ? {} : { "content-security-policy": file.policy })
  }
  return acceptsGzip(incoming)
    ? { status: 200, headers: { ...headers, "content-encoding": "gzip" }, body: file.gzipped }
    : { status: 200, headers, body: file.text }
}

/** A refusal in the APIs' error body, with the client's request id when it sent a sane one. */
const refusal = (
  incoming: IncomingMessage,
  status: number,
  code: string,
  detail: string,
  headers: Record<string, string> = {}
): Edge.Answer => {
  const given = incoming.headers["x-request-id"]
  const requestId = Edge.requestIdOf(Array.isArray(given) ? given[0] : given)
  return {
    status,
    headers: { ...headers, "content-type": "application/json; charset=utf-8", "x-request-id": requestId },
    body: Edge.errorBody(code, detail, requestId)
  }
}

const page =
  (load: () => Promise<Asset>): Page =>
  (incoming) =>
    incoming.method === "GET" || incoming.method === "HEAD"
      ? Effect.map(Effect.promise(load), (file) => serve(incoming, file))
      : Effect.succeed(refusal(incoming, 405, "method_not_allowed", "allowed: GET, HEAD", { allow: "GET, HEAD" }))

const docsShell = (redocVersion: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>CRM API reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="/api/v1/openapi.json" theme='${Edge.escapeHtml(JSON.stringify(REDOC_THEME))}'></redoc>
<script src="${REDOC_PATH}?v=${encodeURIComponent(redocVersion)}"></script>
</body>
</html>
`

/** The system's fonts: Redoc's own (Montserrat, Roboto) would be fetched from elsewhere or fall back anyway. */
const SYSTEM_FONTS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
const REDOC_THEME = {
  typography: {
    fontFamily: SYSTEM_FONTS,
    headings: { fontFamily: SYSTEM_FONTS },
    code: { fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace' }
  }
}

const docsMissing = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>CRM API reference</title>
<style>body { font: 1rem/1.5 ${SYSTEM_FONTS}; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: #1a1a1a; } a { color: #0645ad; }</style>
</head>
<body>
<main>
<h1>CRM API reference</h1>
<p>The reference page is rendered by Redoc, which is not installed beside this server (<code>npm install redoc@2</code> in the application adds it).</p>
<p>The OpenAPI document it would render is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>
</main>
</body>
</html>
`

interface Redoc {
  readonly file: string
  readonly version: string
}

const findRedoc = (from: string | URL): Redoc | undefined => {
  const resolver = createRequire(from)
  try {
    const file = resolver.resolve("redoc/bundles/redoc.standalone.js")
    const { version } = resolver("redoc/package.json") as { readonly version: string }
    return { file, version }
  } catch {
    return undefined
  }
}

const checkbox = (name: string, value: string, index: number, item = "") =>
  `<li${item}><input type="checkbox" id="${name}-${index}" name="${name}" value="${Edge.escapeHtml(value)}"><label for="${name}-${index}">${Edge.escapeHtml(value)}</label></li>`

/** A scope's box on the settings page, marked when a member's key may hold it (the page offers members only those). */
const scopeBox = (scope: Access.Scope, index: number) =>
  checkbox("scopes", scope, index, People.MEMBER_SCOPES.includes(scope) ? ' data-member-scope="true"' : "")

/**
 * A box for a secret the API shows once (a new key, a signing secret, an invitation's link), where
 * the template says `{{secret id|title|copy button's label|note}}` (the note may be left for the
 * page to write), indented as the line it stands on. Both pages show their secrets through these
 * boxes (src/shared/secrets.ts), which are alike but for their words.
 */
const SECRET_BOX = /^( *)\{\{secret ([^}|]+)\|([^}|]+)\|([^}|]+)\|([^}|]*)\}\}$/gm

const secretBox = (indent: string, id: string, title: string, copy: string, note: string) =>
  [
    `<section id="${id}" class="secret" hidden tabindex="-1" aria-labelledby="${id}-title">`,
    `  <h3 id="${id}-title">${title}</h3>`,
    `  <p id="${id}-note">${note}</p>`,
    `  <div class="secret-value">`,
    `    <code id="${id}-value"></code>`,
    `    <button type="button" class="copy" data-copy="${id}-value">${copy}</button>`,
    "  </div>",
    "</section>"
  ]
    .map((line) => indent + line)
    .join("\n")

/**
 * A page's three files; the HTML's `{{script}}` and `{{style}}` name the others' versioned URLs. The
 * scopes and the event catalogue come from the kernel, so the page offers what the API accepts.
 */
const pageFiles = (name: PageName, policy: string, scopeItem: (scope: Access.Scope, index: number) => string) => {
  const scriptPath = `/${name}/${name}.js`
  const stylePath = `/${name}/${name}.css`
  const script = once(async () => {
    const text = await readPageFile(name, "js")
    return asset("text/javascript; charset=utf-8", text, hashOf(text))
  })
  const style = once(async () => {
    const text = await readPageFile(name, "css")
    return asset("text/css; charset=utf-8", text, hashOf(text))
  })
  const html = once(async () => {
    const [template, js, css] = await Promise.all([readPageFile(name, "html"), script(), style()])
    const text = template
      .replace("{{script}}", `${scriptPath}?v=${js.version}`)
      .replace("{{style}}", `${stylePath}?v=${css.version}`)
      .replace("{{scopes}}", Access.SCOPES.map(scopeItem).join("\n"))
      .replace("{{events}}", Events.EVENT_NAMES.map((event, i) => checkbox("events", event, i)).join("\n"))
      .replace(SECRET_BOX, (_, indent: string, id: string, title: string, copy: string, note: string) =>
        secretBox(indent, id, title, copy, note)
      )
    return asset(HTML, text, undefined, policy)
  })
  return { script, style, html, scriptPath, stylePath }
}

/** The pages and their files by path, to be answered in front of the APIs (`around`). */
export const make = (options: PagesOptions): Pages => {
  const redoc = once(async () => findRedoc(options.resolveFrom))
  const redocBundle = once(async () => {
    const found = await redoc()
    if (found === undefined) throw new Error("redoc is not installed")
    const text = await readFile(found.file, "utf8")
    return asset("text/javascript; charset=utf-8", text.replaceAll(REDOCLY_LOGO, '""'), found.version)
  })
  const docs = once(async () => {
    const found = await redoc()
    return asset(HTML, found === undefined ? docsMissing : docsShell(found.version), undefined, DOCS_POLICY)
  })

  const admin = pageFiles("admin", ADMIN_POLICY, (scope, i) => checkbox("scopes", scope, i))
  const settings = pageFiles("settings", SETTINGS_POLICY, scopeBox)

  const bundle: Page = (incoming) =>
    Effect.flatMap(Effect.promise(redoc), (found) =>
      found === undefined
        ? Effect.succeed(refusal(incoming, 404, "not_found", "redoc is not installed beside this server"))
        : page(redocBundle)(incoming)
    )

  return new Map<string, Page>([
    [DOCS_PATH, page(docs)],
    [`${DOCS_PATH}/`, moved(DOCS_PATH)],
    [REDOC_PATH, bundle],
    [ADMIN_PATH, page(admin.html)],
    [`${ADMIN_PATH}/`, moved(ADMIN_PATH)],
    [admin.scriptPath, page(admin.script)],
    [admin.stylePath, page(admin.style)],
    [SETTINGS_PATH, page(settings.html)],
    [`${SETTINGS_PATH}/`, moved(SETTINGS_PATH)],
    [settings.scriptPath, page(settings.script)],
    [settings.stylePath, page(settings.style)]
  ])
}

/** `/docs/`, `/admin/` and `/settings/` as typed by hand: the page, not the API's 404. */
const moved =
  (path: string): Page =>
  () =>
    Effect.succeed({ status: 308, headers: { location: path, "cache-control": "no-cache" }, body: "" })

/**
 * The application with the pages in front: a request for a page's path is the page's, anything
 * else goes to `app` as it came (one map lookup on the path, no parsing of the URL).
 */
export const around =
  <R>(
    pages: Pages,
    app: (incoming: IncomingMessage) => Effect.Effect<Edge.Answer, never, R>
  ): ((incoming: IncomingMessage) => Effect.Effect<Edge.Answer, never, R>) =>
  (incoming) => {
    const target = incoming.url ?? "/"
    const query = target.indexOf("?")
    const found = pages.get(query === -1 ? target : target.slice(0, query))
    return found === undefined ? app(incoming) : found(incoming)
  }
