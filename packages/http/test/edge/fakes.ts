/**
 * What the stages read of a request and of a key, made without a server or a store: a request is
 * a plain object (or a stream, where its body is read) cast to node's type, a principal holds only
 * the fields the pipeline reads.
 */
import type { IncomingMessage } from "node:http"
import { PassThrough } from "node:stream"
import type { Access } from "@crm/core"

export const incomingOf = (
  headers: Record<string, string> = {},
  remoteAddress = "203.0.113.7",
  method = "GET"
): IncomingMessage => ({ headers, method, socket: { remoteAddress } }) as unknown as IncomingMessage

/** A request whose body arrives as written to it (`end` it, or `destroy` it as a client going away). */
export const streamOf = (headers: Record<string, string> = {}): IncomingMessage & PassThrough =>
  Object.assign(new PassThrough(), { headers, method: "POST" }) as unknown as IncomingMessage & PassThrough

/** A request whose whole body is `body`, already sent. */
export const sending = (body: string | Buffer, headers: Record<string, string> = {}): IncomingMessage => {
  const incoming = streamOf(headers)
  incoming.end(body)
  return incoming
}

export const principalOf = (
  options: { readonly scopes?: ReadonlyArray<Access.Scope>; readonly readOnly?: boolean } = {}
): Access.Principal =>
  ({
    key: {
      id: "0e8e4f0e-8a38-4d3c-9d2a-3f6f0f3e2b11",
      hash: "9f2c8a1e5b7d4c3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a",
      scopes: options.scopes ?? ["read", "write"]
    },
    organisation: {
      id: "5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
      settings: { plan: { read_only: options.readOnly ?? false } }
    }
  }) as unknown as Access.Principal
