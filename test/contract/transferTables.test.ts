/**
 * Every table that holds an organisation's rows is carried by its export (storage-pg's
 * `TransferStore.TABLES`) or left out on purpose (`NOT_CARRIED`, which says why): a migration that
 * adds one must add it to one of them, or this fails.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { expect, it } from "vitest"
import { NOT_CARRIED, TABLES } from "../../packages/storage-pg/src/TransferStore.js"
import { pgliteStore } from "../support/storages.js"

it("the export carries every table with an organisation_id column but those it leaves out on purpose", async () => {
  const tables = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(pgliteStore())
        const sql = Context.get(context, SqlClient.SqlClient)
        return yield* sql<{ table_name: string }>`SELECT DISTINCT table_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_name = 'organisation_id' ORDER BY table_name`
      })
    )
  )
  const carried = new Set(TABLES.map((table) => table.name))
  // Equal, not included: a name left out that no table has any more is a stale list.
  expect(tables.map((row) => row.table_name).filter((name) => !carried.has(name))).toEqual([...NOT_CARRIED].sort())
})
