import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("cursor secret storage contract", ["cursorSecret"])
