/** A local webhook receiver: records every request and answers from a script, for delivery tests. */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/**
 * How to answer one request; `hang` never answers (a timeout, or a process killed mid-delivery),
 * `reset` drops the connection without an answer.
 */
export type Answer =
  | {
      readonly status: number
      readonly headers?: Record<string, string>
      readonly body?: string
      /** Answers only once this settles: an attempt still in flight while the test acts. */
      readonly after?: Promise<unknown>
    }
  | "hang"
  | "reset"

export interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  /** Answers for the next requests, in order; once used up, the receiver's `respond` answers. */
  readonly script: (...answers: ReadonlyArray<Answer>) => void
  /** Resolves once `count` requests have arrived. */
  readonly arrived: (count: number) => Promise<void>
  /** Requests that arrived and are neither answered nor dropped by the sender yet. */
  readonly open: () => number
  /** The most requests that were open at once. */
  readonly mostOpen: () => number
  readonly close: () => Promise<void>
}

/** `respond` answers what no script does (by default 200 "ok"); `received` already holds `request`. */
export const startReceiver = async (
  respond: (request: Received, received: ReadonlyArray<Received>) => Answer = () => ({ status: 200, body: "ok" })
): Promise<Receiver> => {
  const received: Array<Received> = []
  let open = 0
  let mostOpen = 0
  const answers: Array<Answer> = []
  const waiters: Array<{ count: number; resolve: () => void }> = []
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const arrival = { headers: request.headers, body: Buffer.concat(chunks).toString("utf8") }
      received.push(arrival)
      open++
      mostOpen = Math.max(mostOpen, open)
      response.on("close", () => open--)
      for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve()
      const answer = answers.shift() ?? respond(arrival, received)
      if (answer === "hang") return
      if (answer === "reset") {
        request.socket.destroy()
        return
      }
      const reply = () => {
        response.writeHead(answer.status, answer.headers ?? {})
        response.end(answer.body ?? "")
      }
      if (answer.after === undefined) reply()
      else void answer.after.then(reply)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    script: (...next) => {
      answers.push(...next)
    },
    arrived: (count) =>
      received.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    open: () => open,
    mostOpen: () => mostOpen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
