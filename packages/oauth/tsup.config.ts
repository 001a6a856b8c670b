import { defineConfig } from "tsup"
import { library } from "../../tsup.library.js"

export default defineConfig(library({ index: "src/index.ts" }))
