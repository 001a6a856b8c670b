/** A local webhook receiver: records every request and answers from a script, for delivery tests. */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** How to answer one request; `hang` never answers (a timeout, or a process killed mid-delivery). */
export type Answer =
  | {
      readonly status: number
      readonly headers?: Record<string, string>
      readonly body?: string
      /** Answers only once this settles: an attempt still in flight while the test acts. */
      readonly after?: Promise<unknown>
    }
  | "hang"

export interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  /** Answers for the next requests, in order; once used up, every request gets 200. */
  readonly script: (...answers: ReadonlyArray<Answer>) => void
  /** Resolves once `count` requests have arrived. */
  readonly arrived: (count: number) => Promise<void>
  readonly close: () => Promise<void>
}

export const startReceiver = async (): Promise<Receiver> => {
  const received: Array<Received> = []
  const answers: Array<Answer> = []
  const waiters: Array<{ count: number; resolve: () => void }> = []
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
      for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve()
      const answer = answers.shift() ?? { status: 200, body: "ok" }
      if (answer === "hang") return
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
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
