import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("people and audit storage contract", ["people", "audit"])
