import { defineContext } from "../internal/defineContext.js"
import { layer, Transfer } from "../Transfer.js"

export const TransferContext = defineContext(Transfer, layer)
