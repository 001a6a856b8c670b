import { runStorageContract } from "@crm/testing/contract"
import { afterAll, beforeAll, describe } from "vitest"
import { storages } from "../support/storages.js"

for (const storage of storages) {
  describe(`health storage contract [${storage.name}]`, () => {
    beforeAll(storage.setup)
    afterAll(storage.teardown)
    runStorageContract(storage.name, storage.fresh, { suites: ["health"] })
  })
}
