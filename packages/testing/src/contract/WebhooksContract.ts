/**
 * The webhook storage contract, for every adapter: subscriptions per key with a hard limit under
 * concurrency, the outbox written by `EventLog.append` in the event's own unit of work, and
 * claims that lease a hook to one claimant at a time until they release it or the lease runs out,
 * skip a hook while its circuit has it paused, and serve the hook waiting on the oldest event first.
 * Its cases are kept by area in `Webhooks/`.
 */
import { describe } from "@effect/vitest"
import type * as Layer from "effect/Layer"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import type { StoragePorts } from "./Fixtures.js"
import { claimCases } from "./Webhooks/Claims.js"
import { outboxCases } from "./Webhooks/Outbox.js"
import { subscriptionCases } from "./Webhooks/Subscriptions.js"

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const cases = contractCases(makeLayer, options)
  describe(`webhook storage contract: ${name}`, () => {
    subscriptionCases(cases)
    outboxCases(cases)
    claimCases(cases)
  })
}
