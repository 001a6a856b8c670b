/**
 * Migrates each store's template once for the whole run, before any worker starts: made in each
 * worker (initdb and every migration, about five seconds of CPU for PGlite), it cost more than
 * most files' tests while workers were a fresh process per file, and still costs one per worker.
 *
 * Every template is made, whichever stores this run chose: a file that tests one store directly
 * (PGlite's client, the server's migrations) reads it too, and PGlite's costs seconds once.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as StoragePg from "@crm/storage-pg"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { TestProject } from "vitest/node"
import { createDatabase, serverUrl } from "./pgDatabase.js"

export default async function setup(project: TestProject) {
  const directory = await mkdtemp(join(tmpdir(), "crm-test-"))
  const dumped = join(directory, "pglite-template.tar")
  await writeFile(dumped, Buffer.from(await (await Effect.runPromise(StoragePg.pgliteTemplate)).arrayBuffer()))
  project.provide("pgliteTemplate", dumped)

  const server = serverUrl === undefined ? undefined : await createDatabase(serverUrl)
  if (server !== undefined) {
    await Effect.runPromise(Effect.scoped(Layer.build(StoragePg.layerServer({ url: server.url, maxConnections: 1 }))))
  }
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
