/**
 * An assistant as the MCP SDK makes one: its OAuth client provider (what a desktop or web assistant
 * implements), with a loopback redirect that a local server receives, as a native client's does.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens
} from "@modelcontextprotocol/sdk/shared/auth.js"

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
    const query = new URL(request.url ?? "/", "http://127.0.0.1").searchParams
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
