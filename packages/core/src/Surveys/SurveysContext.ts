import { defineContext } from "../internal/defineContext.js"
import { layer, Surveys } from "../Surveys.js"

export const SurveysContext = defineContext(Surveys, layer)
