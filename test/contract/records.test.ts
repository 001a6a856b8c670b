import { afterAll, beforeAll, describe } from "vitest"
import { storages } from "../support/storages.js"
import { suite } from "./RecordsContract.js"

for (const storage of storages) {
  describe(`records contract [${storage.name}]`, () => {
    beforeAll(storage.setup)
    afterAll(storage.teardown)
    suite(storage.name, storage.fresh)
  })
}
