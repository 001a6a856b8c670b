import { afterAll, beforeAll, describe } from "vitest"
import { storages } from "../support/storages.js"
import { suite } from "./SitesContract.js"

for (const storage of storages) {
  describe(`sites storage contract [${storage.name}]`, () => {
    beforeAll(storage.setup)
    afterAll(storage.teardown)
    suite(storage.name, storage.fresh)
  })
}
