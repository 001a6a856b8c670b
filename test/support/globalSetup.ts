/**
 * Migrates each store's template once for the whole run, before any worker starts: made in each
 * worker (initdb and every migration, about five seconds of CPU for PGlite), it cost more than
 * most files' tests while workers were a fresh process per file, and still costs one per worker.
 *
 * Every template is made, whichever stores this run chose: a file that tests one store directly
 * (PGlite's client, the server's migrations) reads it too, and PGlite's costs seconds once. The
 * server's is made on the server the `*.pg.test.ts` suites run on (`pgServer.ts`), when one answers.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as StoragePg from "@crm/storage-pg"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { TestProject } from "vitest/node"
import { createDatabase, LOCAL_SERVER_URL, serverUrl, unanswered } from "./pgDatabase.js"

/** A new database on `url` with every migration applied; dropped again if they fail. */
const migratedDatabase = async (url: string) => {
  const database = await createDatabase(url)
  try {
    await Effect.runPromise(Effect.scoped(Layer.build(StoragePg.layerServer({ url: database.url, maxConnections: 1 }))))
    return database
  } catch (error) {
    await database.drop()
    throw error
  }
}

export default async function setup(project: TestProject) {
  // The suites that need a server of their own (`pgServer.ts`): DATABASE_URL's, else the local one
  // if it answers. A server DATABASE_URL names is not asked: if it fails, those suites should fail.
  const missing = serverUrl === undefined ? await unanswered(LOCAL_SERVER_URL) : undefined
  const pgServer = missing === undefined ? (serverUrl ?? LOCAL_SERVER_URL) : undefined
  const why = `no PostgreSQL server answers at ${new URL(LOCAL_SERVER_URL).host} (${missing}) and DATABASE_URL is not set`
  project.provide("pgServer", pgServer)
  project.provide("pgServerMissing", why)
  if (missing !== undefined) console.warn(`${why}: the *.pg.test.ts suites are skipped`)

  const directory = await mkdtemp(join(tmpdir(), "crm-test-"))
  const dumped = join(directory, "pglite-template.tar")
  const [pglite, made] = await Promise.allSettled([
    Effect.runPromise(StoragePg.pgliteTemplate).then(async (blob) =>
      writeFile(dumped, Buffer.from(await blob.arrayBuffer()))
    ),
    pgServer === undefined ? undefined : migratedDatabase(pgServer)
  ])
  const server = made.status === "fulfilled" ? made.value : undefined
  for (const outcome of [pglite, made]) {
    if (outcome.status === "rejected") {
      await server?.drop()
      throw outcome.reason
    }
  }
  project.provide("pgliteTemplate", dumped)
  project.provide("serverTemplate", server?.name)

  // The programs tests run as processes are bundled here (sources.ts): inside the repository, so
  // that what a bundle leaves to node_modules resolves from it; one directory per run.
  await mkdir(join(import.meta.dirname, "../../node_modules/.cache"), { recursive: true })
  const bundles = await mkdtemp(join(import.meta.dirname, "../../node_modules/.cache/crm-tests-"))
  project.provide("bundles", bundles)

  return async () => {
    await server?.drop()
    await rm(directory, { recursive: true, force: true })
    await rm(bundles, { recursive: true, force: true })
  }
}
