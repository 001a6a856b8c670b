/**
 * A minimal SMTP server on node:net for tests: enough of RFC 5321 for a client to hand over
 * messages (no TLS, no AUTH). Recipients that `refuse` names are answered 550, so a send fails.
 */
import { createServer, type Socket } from "node:net"

export interface ReceivedMail {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly data: string
}

export interface SmtpServer {
  readonly url: string
  readonly received: Array<ReceivedMail>
  readonly close: () => Promise<void>
}

const address = (argument: string) => /<([^>]*)>/.exec(argument)?.[1] ?? argument.trim()

export const startSmtpServer = async (refuse: (recipient: string) => boolean = () => false): Promise<SmtpServer> => {
  const received: Array<ReceivedMail> = []
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    socket.on("error", () => socket.destroy())
    let buffer = ""
    let from = ""
    let to: Array<string> = []
    let data: Array<string> | undefined
    const reply = (line: string) => socket.write(`${line}\r\n`)
    reply("220 test SMTP ready")
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8")
      for (let end = buffer.indexOf("\r\n"); end >= 0; end = buffer.indexOf("\r\n")) {
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (data !== undefined) {
          if (line === ".") {
            received.push({ from, to, data: data.join("\n") })
            data = undefined
            reply("250 2.0.0 queued")
          } else data.push(line.startsWith("..") ? line.slice(1) : line)
          continue
        }
        const [verb = "", ...rest] = line.split(" ")
        const argument = rest.join(" ")
        switch (verb.toUpperCase()) {
          case "EHLO":
          case "HELO":
            reply("250 test")
            break
          case "MAIL":
            from = address(argument)
            to = []
            reply("250 2.1.0 ok")
            break
          case "RCPT": {
            const recipient = address(argument)
            if (refuse(recipient)) reply("550 5.1.1 mailbox unavailable")
            else {
              to.push(recipient)
              reply("250 2.1.5 ok")
            }
            break
          }
          case "DATA":
            data = []
            reply("354 end with .")
            break
          case "RSET":
          case "NOOP":
            reply("250 ok")
            break
          case "QUIT":
            reply("221 bye")
            socket.end()
            break
          default:
            reply("502 5.5.2 command not implemented")
        }
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
