import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("notes storage contract", ["notes"])
