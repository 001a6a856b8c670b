import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("webhook storage contract", ["webhooks"])
