import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("OAuth storage contract", ["oauth"])
