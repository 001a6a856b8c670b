/** Runs some of `@crm/testing`'s storage contract suites on every store, a describe block each. */
import { runStorageContract, type SuiteName } from "@crm/testing/contract"
import { describe } from "vitest"
import { storages } from "./storages.js"

export const contractOnEveryStore = (title: string, suites: ReadonlyArray<SuiteName>) => {
  for (const storage of storages) {
    describe(`${title} [${storage.name}]`, () => runStorageContract(storage.name, storage.fresh, { suites }))
  }
}
