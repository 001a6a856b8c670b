/**
 * The storage contract of the service entities (tickets, returns, purchase orders, survey answers,
 * calls): every adapter must pass it unchanged, like every other suite here. Its cases are kept by
 * area in `ServiceEntities/`.
 */
import { describe } from "@effect/vitest"
import type * as Layer from "effect/Layer"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import type { StoragePorts } from "./Fixtures.js"
import { conversationCases } from "./ServiceEntities/Conversations.js"
import { goodsCases } from "./ServiceEntities/Goods.js"
import { ticketCases } from "./ServiceEntities/Tickets.js"

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const cases = contractCases(makeLayer, options)
  describe(`service entities storage contract: ${name}`, () => {
    ticketCases(cases)
    goodsCases(cases)
    conversationCases(cases)
  })
}
