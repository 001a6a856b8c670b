import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("orders and mail storage contract", ["orders"])
