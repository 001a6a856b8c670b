/** `bin/crm-mcp.js` runs `dist/main.js`, bundled as the server is (see examples/server/tsup.config.ts). */
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "tsup"
import { bundle } from "../server/tsup.config.js"

export default defineConfig(bundle(dirname(fileURLToPath(import.meta.url)), { main: "src/main.ts" }))
