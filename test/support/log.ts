/** What a test server writes to its log, kept for the test to read. */
import { Writable } from "node:stream"

/** A writable to give the server as its log's output, and the text written to it so far. */
export const collector = () => {
  let text = ""
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString("utf8")
      done()
    }
  })
  return { output, text: () => text, lines: () => text.split("\n").filter((line) => line !== "") }
}
