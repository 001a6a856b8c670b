import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("service entities storage contract", ["serviceEntities"])
