import { defineContext } from "../internal/defineContext.js"
import { LinkPages, layer } from "../LinkPages.js"

export const LinkPagesContext = defineContext(LinkPages, layer)
