/** The storage contract of units of work, the event log, rate limits, idempotency and access. */
import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("kernel storage contract", ["transaction", "eventLog", "rateLimiter", "idempotency", "access"])
