import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("records contract", ["records"])
