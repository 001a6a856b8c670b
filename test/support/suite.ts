/** Runs a black-box suite once per store, each against its own freshly started server. */
import { afterAll, beforeAll, describe } from "vitest"
import { type ServerTestOptions, startServer, type TestServer } from "./server.js"
import { storages } from "./storages.js"

export const onEveryStore = (
  title: string,
  body: (server: () => TestServer) => void,
  options: ServerTestOptions = {}
) => {
  for (const storage of storages) {
    describe(`${title} [${storage.name}]`, () => {
      let server: TestServer | undefined
      beforeAll(async () => {
        server = await startServer(storage.fresh(), options)
      })
      afterAll(async () => {
        await server?.close()
      })
      body(() => {
        if (server === undefined) throw new Error("server not started")
        return server
      })
    })
  }
}
