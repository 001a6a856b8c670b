import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "tsup"
import { library } from "../../tsup.library.js"
import { writeAdmin } from "./scripts/bundleAdmin.js"

const here = dirname(fileURLToPath(import.meta.url))

// Beside the library, the admin page for the browser in `dist/admin/` (see scripts/bundleAdmin.ts).
export default defineConfig({ ...library({ index: "src/index.ts" }), onSuccess: () => writeAdmin(here) })
