/**
 * The I/O behind the webhook ports: DNS resolution for the target check at subscription, and the
 * delivery POST over node:http/https. Node's built-in fetch ignores custom agents and lookups, so
 * it could not check the address it actually connects to; `request` with a `lookup` can.
 */
import * as dns from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import { Webhooks } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const EXCERPT_BYTES = 1024

export const resolver = Layer.succeed(
  Webhooks.Resolver,
  Webhooks.Resolver.of({
    resolve: (hostname) =>
      Effect.promise(() =>
        dns.promises.lookup(hostname, { all: true }).then(
          (found) => found.map((entry) => entry.address),
          () => []
        )
      )
  })
)

/** dns.lookup, refusing the connection when any address the name resolves to is refused. */
const guardedLookup =
  (refuseAddress: (address: string) => string | undefined): LookupFunction =>
  (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, "", 4)
      for (const entry of addresses) {
        const reason = refuseAddress(entry.address)
        if (reason !== undefined) return callback(new Error(`address refused: ${reason}`), "", 4)
      }
      const first = addresses[0]
      if (first === undefined) return callback(new Error(`${hostname} has no address`), "", 4)
      // Node asks for every address when it may race families (autoSelectFamily), for one otherwise.
      if (options.all === true) return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses)
      callback(null, first.address, first.family)
    })
  }

const send = (request: Webhooks.OutboundRequest) =>
  Effect.async<Webhooks.OutboundResult>((resume) => {
    const started = performance.now()
    const elapsed = () => performance.now() - started
    let settled = false
    const finish = (result: Webhooks.OutboundResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(Effect.succeed(result))
    }
    const fail = (error: string) => finish({ _tag: "Failure", error, durationMs: elapsed() })

    const url = new URL(request.url)
    const client = url.protocol === "https:" ? https : http
    const outgoing = client.request(
      url,
      {
        method: "POST",
        headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) },
        lookup: guardedLookup(request.refuseAddress),
        agent: false
      },
      (response) => {
        const chunks: Array<Buffer> = []
        let size = 0
        const answered = () =>
          finish({
            _tag: "Response",
            status: response.statusCode ?? 0,
            retryAfter: response.headers["retry-after"],
            excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString("utf8"),
            durationMs: elapsed()
          })
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk)
          size += chunk.length
          // Only an excerpt is kept: stop reading rather than buffer a large answer.
          if (size >= EXCERPT_BYTES) {
            answered()
            response.destroy()
          }
        })
        response.on("end", answered)
        response.on("close", answered)
        response.on("error", answered)
      }
    )
    const timer = setTimeout(() => {
      fail(`timed out after ${request.timeoutMs} ms`)
      outgoing.destroy()
    }, request.timeoutMs)
    outgoing.on("error", (error) => fail(error.message))
    outgoing.end(request.body)
    return Effect.sync(() => {
      clearTimeout(timer)
      outgoing.destroy()
    })
  })

export const sender = Layer.succeed(Webhooks.WebhookSender, Webhooks.WebhookSender.of({ send }))
