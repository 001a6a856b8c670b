/**
 * The storage contract of @crm/testing, a file per area so that vitest runs them in parallel: this
 * one holds the ports every context uses (records of the sales contexts, numbering, rates, units of
 * work, events, rate limits, idempotency and access).
 */
import { runStorageContract } from "@crm/testing/contract"
import { afterAll, beforeAll, describe } from "vitest"
import { storages } from "../support/storages.js"

for (const storage of storages) {
  describe(`storage contract [${storage.name}]`, () => {
    beforeAll(storage.setup)
    afterAll(storage.teardown)
    runStorageContract(storage.name, storage.fresh, {
      suites: [
        "contacts",
        "companies",
        "deals",
        "tasks",
        "quotes",
        "invoices",
        "numberSequence",
        "exchangeRates",
        "transaction",
        "eventLog",
        "rateLimiter",
        "idempotency",
        "access"
      ]
    })
  })
}
