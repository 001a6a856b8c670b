import { defineContext } from "../internal/defineContext.js"
import { layer, Search } from "../Search.js"

export const SearchContext = defineContext(Search, layer)
