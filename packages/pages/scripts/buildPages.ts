/**
 * `npm run build:pages`: `dist/admin/` and `dist/settings/` alone, without the library and its
 * declarations. An application that bundles this package from its sources (the server's build,
 * the root's `npm run build`) needs only the pages' files from it.
 */
import { fileURLToPath } from "node:url"
import { writePages } from "./bundlePages.js"

await writePages(fileURLToPath(new URL("..", import.meta.url)))
