/**
 * The storage contract of the sales records every context uses. The ports every context uses are
 * split over this file, billing.test.ts and kernel.test.ts so that vitest runs them in parallel.
 */
import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("sales storage contract", ["contacts", "companies", "deals", "tasks"])
