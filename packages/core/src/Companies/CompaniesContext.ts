import { Companies, layer } from "../Companies.js"
import { defineContext } from "../internal/defineContext.js"

export const CompaniesContext = defineContext(Companies, layer)
