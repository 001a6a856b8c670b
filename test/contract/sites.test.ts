import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("sites storage contract", ["sites"])
