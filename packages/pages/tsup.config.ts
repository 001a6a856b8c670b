import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "tsup"
import { library } from "../../tsup.library.js"
import { writePages } from "./scripts/bundlePages.js"

const here = dirname(fileURLToPath(import.meta.url))

// Beside the library, the pages for the browser in `dist/admin/` and `dist/settings/` (see scripts/bundlePages.ts).
export default defineConfig({ ...library({ index: "src/index.ts" }), onSuccess: () => writePages(here) })
