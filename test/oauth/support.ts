/**
 * An assistant as the MCP SDK makes one: its OAuth client provider (what a desktop or web assistant
 * implements), with a loopback redirect that a local server receives, as a native client's does.
 */
import { createHash, randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens
} from "@modelcontextprotocol/sdk/shared/auth.js"
import { jsonOf } from "../support/responseCheck.js"
import type { Person, TestServer } from "../support/server.js"

/** Where the authorization server sends the browser back: the code (or the error) it was given. */
export interface Callback {
  readonly url: string
  /** The query of the next request to the callback. */
  readonly next: () => Promise<URLSearchParams>
  readonly close: () => Promise<void>
}

export const callbackServer = async (): Promise<Callback> => {
  const waiting: Array<(query: URLSearchParams) => void> = []
  const arrived: Array<URLSearchParams> = []
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1")
    // Only the redirect: a browser asks for a favicon too.
    if (url.pathname !== "/callback") return response.writeHead(404).end()
    const query = url.searchParams
    const waiter = waiting.shift()
    if (waiter === undefined) arrived.push(query)
    else waiter(query)
    response.writeHead(200, { "content-type": "text/plain" }).end("You may close this window.")
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const first = arrived.shift()
      return first === undefined ? new Promise((done) => waiting.push(done)) : Promise.resolve(first)
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      })
  }
}

/** The SDK's client provider, keeping what it is given in memory, as a test's assistant would. */
export class Assistant implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier: string | undefined
  /** Where the SDK sent the person to authorize, last. */
  authorizationUrl: URL | undefined

  constructor(
    readonly redirect: string,
    readonly name = "Test assistant",
    readonly scope?: string
  ) {}

  get redirectUrl() {
    return this.redirect
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(this.scope === undefined ? {} : { scope: this.scope })
    }
  }

  clientInformation() {
    return this.client
  }
  saveClientInformation(client: OAuthClientInformationMixed) {
    this.client = client
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    if (this.verifier === undefined) throw new Error("no code verifier saved")
    return this.verifier
  }
}

/*
 * The same flow by plain HTTP requests, for the suites that try what a client or a page should not
 * be able to do: each hop is a request of the test's, and each answer is seen as it is.
 */

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly body: any
  /** Where a redirect sends the browser, resolved against the request's URL. */
  readonly location: URL | undefined
}

const answerOf = async (response: Response): Promise<Answer> => {
  const text = await response.text()
  const location = response.headers.get("location")
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: jsonOf(text),
    location: location === null ? undefined : new URL(location, response.url)
  }
}

/** Where the tests' clients are sent back: a loopback address nothing listens at, as the answers are read off the redirects. */
export const LOOPBACK_REDIRECT = "http://127.0.0.1:9/callback"

/** A PKCE verifier and its S256 challenge (RFC 7636), new for each authorization request. */
export const pkce = () => {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

/** A registration (RFC 7591); a string is sent as the body as it is. */
export const register = (server: TestServer, metadata: unknown): Promise<Answer> =>
  fetch(`${server.url}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof metadata === "string" ? metadata : JSON.stringify(metadata)
  }).then(answerOf)

export interface Registered {
  readonly client_id: string
  readonly redirect: string
}

/** A public client registered as an assistant registers itself. */
export const registered = async (
  server: TestServer,
  name = "Test assistant",
  redirect = LOOPBACK_REDIRECT
): Promise<Registered> => {
  const answer = await register(server, {
    client_name: name,
    redirect_uris: [redirect],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none"
  })
  if (answer.status !== 201) throw new Error(`client not registered: ${answer.status} ${answer.text}`)
  return { client_id: answer.body.client_id, redirect }
}

/** A form post to one of the authorization server's endpoints (token, revocation), as RFC 6749 sends them. */
export const formPost = (server: TestServer, path: string, fields: Record<string, string>): Promise<Answer> =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields)
  }).then(answerOf)

/** A JSON-RPC request to `/api/mcp` with a bearer token (none when undefined). */
export const mcp = (
  server: TestServer,
  token: string | undefined,
  method = "tools/list",
  params: Record<string, unknown> = {}
): Promise<Answer> =>
  fetch(`${server.url}/api/mcp`, {
    method: "POST",
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      "content-type": "application/json",
      accept: "application/json, text/event-stream"
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
  }).then(answerOf)

/**
 * A browser without a page: its cookie jar (by name and path, as a browser sends them) over
 * fetch, following no redirect on its own, so that each hop of an authorization is seen.
 */
export class FormBrowser {
  readonly #cookies = new Map<string, { readonly value: string; readonly path: string }>()

  /** `session`: a signed-in person's (`Person.cookie`), as the browser they signed in with holds it. */
  constructor(
    readonly server: TestServer,
    session?: string
  ) {
    if (session !== undefined) this.#keep([`${session}; path=/`])
  }

  #keep(cookies: ReadonlyArray<string>) {
    for (const cookie of cookies) {
      const [pair = "", ...attributes] = cookie.split(";")
      const equals = pair.indexOf("=")
      const name = pair.slice(0, equals).trim()
      const path = attributes.map((attribute) => /^\s*path=(.*)$/i.exec(attribute)?.[1]).find(Boolean) ?? "/"
      const value = pair.slice(equals + 1).trim()
      if (value === "") this.#cookies.delete(name)
      else this.#cookies.set(name, { value, path })
    }
  }

  #cookieFor(path: string): string {
    return [...this.#cookies]
      .filter(
        ([, cookie]) =>
          path === cookie.path || path.startsWith(cookie.path.endsWith("/") ? cookie.path : `${cookie.path}/`)
      )
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join("; ")
  }

  async request(
    method: "GET" | "POST",
    target: string | URL,
    form?: URLSearchParams,
    headers: Record<string, string> = {}
  ): Promise<Answer> {
    const url = new URL(target, this.server.url)
    const response = await fetch(url, {
      method,
      redirect: "manual",
      headers: {
        cookie: this.#cookieFor(url.pathname),
        ...(form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
        ...headers
      },
      ...(form === undefined ? {} : { body: form })
    })
    this.#keep(response.headers.getSetCookie())
    return answerOf(response)
  }

  /**
   * Follows the server's redirects from an answer, as a browser would, up to the first answer
   * that is not one of them: a page of the server's, or the redirect back to the client.
   */
  async follow(answer: Answer): Promise<Answer> {
    let current = answer
    // The server's own are its /oauth/ paths, named under its public URL, which may be another
    // name for it than the test's (a balancer's, in front of several processes).
    for (let to = current.location; to?.pathname.startsWith("/oauth/"); to = current.location) {
      current = await this.request("GET", `${to.pathname}${to.search}`)
    }
    return current
  }
}

/** The authorization request of an assistant (RFC 6749 4.1.1 with PKCE and RFC 8707), with `changes` to it (undefined: left out). */
export const authorizationQuery = (
  server: TestServer,
  client: Registered,
  challenge: string,
  changes: Record<string, string | undefined> = {}
): URLSearchParams => {
  const fields: Record<string, string | undefined> = {
    client_id: client.client_id,
    redirect_uri: client.redirect,
    response_type: "code",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "read write",
    resource: `${server.url}/api/mcp`,
    state: "the-client-state",
    ...changes
  }
  return new URLSearchParams(
    Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined)
  )
}

export interface ConsentScreen {
  /** The screen's own path (`/oauth/consent/<uid>`), where its forms post. */
  readonly path: string
  readonly page: Answer
  /** The session's CSRF token as the consent form carries it, when the screen shows that form. */
  readonly csrf: string | undefined
}

/** Where an authorization request leads the browser: the consent screen, as it shows. */
export const consentScreen = async (browser: FormBrowser, query: URLSearchParams): Promise<ConsentScreen> => {
  const started = await browser.request("GET", `/oauth/authorize?${query}`)
  if (started.status !== 303 || started.location === undefined) {
    throw new Error(`the authorization request did not reach the consent screen: ${started.status} ${started.text}`)
  }
  const page = await browser.request("GET", started.location)
  return {
    path: started.location.pathname,
    page,
    csrf: /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1]
  }
}

/** The consent form as the screen posts it: `scope` once per scope given. */
export const consentForm = (fields: Record<string, string | ReadonlyArray<string>>): URLSearchParams => {
  const form = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) {
    for (const one of typeof value === "string" ? [value] : value) form.append(name, one)
  }
  return form
}

export interface Connected {
  readonly client: Registered
  readonly code: string
  readonly verifier: string
}

/**
 * A code as a signed-in person gives it: a client registered (unless given), its authorization
 * request, the person's Allow on the consent screen with `scopes` for the organisation, and the
 * redirect back to the client, whose code is returned.
 */
export const consented = async (
  server: TestServer,
  person: Person,
  organisationId: string,
  options: {
    readonly client?: Registered
    readonly scopes?: ReadonlyArray<string>
    /** Changes to the authorization request (`authorizationQuery`). */
    readonly query?: Record<string, string | undefined>
  } = {}
): Promise<Connected> => {
  const client = options.client ?? (await registered(server))
  const { verifier, challenge } = pkce()
  const browser = new FormBrowser(server, person.cookie())
  const screen = await consentScreen(browser, authorizationQuery(server, client, challenge, options.query))
  if (screen.csrf === undefined) throw new Error(`no consent form: ${screen.page.status} ${screen.page.text}`)
  const allowed = await browser.request(
    "POST",
    screen.path,
    consentForm({
      csrf_token: screen.csrf,
      organisation: organisationId,
      scope: options.scopes ?? ["read", "write"],
      action: "allow"
    })
  )
  const back = await browser.follow(allowed)
  const code = back.location?.searchParams.get("code")
  if (code === null || code === undefined) throw new Error(`no code: ${back.status} ${back.location} ${back.text}`)
  return { client, code, verifier }
}

/** The code for tokens (RFC 6749 4.1.3, with the PKCE verifier), with `changes` to the request. */
export const exchange = (
  server: TestServer,
  connected: Connected,
  changes: Record<string, string> = {}
): Promise<Answer> =>
  formPost(server, "/oauth/token", {
    grant_type: "authorization_code",
    code: connected.code,
    redirect_uri: connected.client.redirect,
    code_verifier: connected.verifier,
    client_id: connected.client.client_id,
    ...changes
  })

/** A refresh (RFC 6749 6) by the client its refresh token was issued to. */
export const refresh = (
  server: TestServer,
  client: Registered,
  refreshToken: string,
  changes: Record<string, string> = {}
): Promise<Answer> =>
  formPost(server, "/oauth/token", {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: client.client_id,
    ...changes
  })
