/**
 * Two servers on one fresh PostgreSQL database, for the length of a `describe`: two server layers
 * with their own pools stand in for two processes (they share nothing but the database).
 */
import { afterAll, beforeAll } from "vitest"
import { createServerDatabase } from "./pgServer.js"
import { type ServerTestOptions, startServer, type TestServer } from "./server.js"
import { serverLayer } from "./storages.js"

export interface TwoProcesses {
  readonly a: () => TestServer
  readonly b: () => TestServer
  /** The database's URL, for a third process or a connection from outside. */
  readonly url: () => string
}

/** `options`: what both are started with (a public URL they share behind one balancer, say). */
export const twoProcesses = (options: ServerTestOptions = {}): TwoProcesses => {
  let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
  let a: TestServer | undefined
  let b: TestServer | undefined
  beforeAll(async () => {
    database = await createServerDatabase()
    a = await startServer(serverLayer(database.url), options)
    b = await startServer(serverLayer(database.url), options)
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await database?.drop()
  })
  return { a: () => a!, b: () => b!, url: () => database!.url }
}
