/**
 * `npm run build:admin`: `dist/admin/` alone, without the library and its declarations. An
 * application that bundles this package from its sources (the server's build, the root's
 * `npm run build`) needs only the page's files from it.
 */
import { fileURLToPath } from "node:url"
import { writeAdmin } from "./bundleAdmin.js"

await writeAdmin(fileURLToPath(new URL("..", import.meta.url)))
