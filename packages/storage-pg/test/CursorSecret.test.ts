/**
 * The cursor secret as several processes and a restart see it: what the storage contract, which
 * builds each store once, cannot show. Two layers with pools of their own on one PostgreSQL database
 * stand for two processes; a PGlite data directory opened again stands for a restart.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Cursors } from "@crm/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { freshDatabase, serverUrl } from "../../../test/support/pgDatabase.js"
import { pgliteTemplate } from "../../../test/support/storages.js"
import * as StoragePg from "../src/index.js"

/** The secret a store opened with `layer` (and closed after) answers when offered `candidate`. */
const secretOf = (layer: Layer.Layer<StoragePg.Ports, unknown>, candidate: string) =>
  Effect.flatMap(Cursors.CursorSecret, (secrets) => secrets.get(Redacted.make(candidate))).pipe(
    Effect.map(Redacted.value),
    Effect.provide(layer)
  )

describe("the cursor secret across processes and restarts", () => {
  it.live(
    "survives reopening a PGlite data directory",
    () =>
      Effect.acquireUseRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "crm-cursor-secret-"))),
        (dataDir) =>
          Effect.gen(function* () {
            // The run's migrated template, so that the first opening skips initdb and the migrations.
            const loadDataDir = yield* Effect.promise(pgliteTemplate)
            const first = yield* secretOf(StoragePg.layerPglite({ dataDir, loadDataDir }), "a".repeat(64))
            expect(first).toBe("a".repeat(64))
            expect(yield* secretOf(StoragePg.layerPglite({ dataDir }), "b".repeat(64))).toBe(first)
          }),
        (dataDir) => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true }))
      ),
    120_000
  )

  it.live.skipIf(serverUrl === undefined)(
    "is one secret for two processes whose first reads race, and for one started after them",
    () =>
      Effect.gen(function* () {
        const database = yield* freshDatabase(serverUrl!)
        const process = () => StoragePg.layerServer({ url: database.url, maxConnections: 2 })
        const [a, b] = yield* Effect.all([secretOf(process(), "a".repeat(64)), secretOf(process(), "b".repeat(64))], {
          concurrency: "unbounded"
        })
        expect(a).toBe(b)
        expect(["a".repeat(64), "b".repeat(64)]).toContain(a)
        expect(yield* secretOf(process(), "c".repeat(64))).toBe(a)
      }).pipe(Effect.scoped),
    60_000
  )
})
