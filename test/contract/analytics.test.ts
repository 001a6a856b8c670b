import { afterAll, beforeAll, describe } from "vitest"
import { storages } from "../support/storages.js"
import { suite } from "./AnalyticsContract.js"

for (const storage of storages) {
  describe(`analytics storage contract [${storage.name}]`, () => {
    beforeAll(storage.setup)
    afterAll(storage.teardown)
    suite(storage.name, storage.fresh)
  })
}
