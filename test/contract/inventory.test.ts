import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("inventory storage contract", ["inventory"])
