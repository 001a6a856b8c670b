import { afterAll, beforeAll, describe } from "vitest"
import { storages } from "../support/storages.js"
import { suite } from "./InventoryContract.js"

for (const storage of storages) {
  describe(`inventory storage contract [${storage.name}]`, () => {
    beforeAll(storage.setup)
    afterAll(storage.teardown)
    suite(storage.name, storage.fresh)
  })
}
