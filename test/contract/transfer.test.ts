import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("organisation transfer storage contract", ["transfer"])
