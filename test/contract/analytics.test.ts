import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("analytics storage contract", ["analytics"])
