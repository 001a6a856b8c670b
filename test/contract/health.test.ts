import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("health storage contract", ["health"])
