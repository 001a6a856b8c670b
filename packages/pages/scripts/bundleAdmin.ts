/**
 * The admin page for the browser: `src/admin/main.ts` and everything it imports (`@crm/client`,
 * openapi-fetch) as one ES module, so that the page loads nothing but its own three files and its
 * policy stays `script-src 'self'`. The package's build writes it to `dist/admin/` with the HTML
 * and the style sheet (`writeAdmin`); the page server, when it runs from the TypeScript sources
 * (the tests, a server under tsx), bundles it in memory at its first request (`bundleAdmin`, see
 * src/internal/adminFiles.ts). This file is build tooling: nothing built or installed imports it.
 */
import { copyFile, mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { build } from "esbuild"

export const ADMIN_FILES = ["admin.html", "admin.css"] as const

export const bundleAdmin = async (packageDirectory: string): Promise<string> => {
  const { outputFiles } = await build({
    entryPoints: [join(packageDirectory, "src", "admin", "main.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    // The workspace's packages from their sources, as every other build here takes them.
    conditions: ["@crm/source"],
    // Left readable: an operator may read what the page runs with the browser's tools.
    minify: false,
    legalComments: "none",
    logLevel: "silent"
  })
  return outputFiles[0]!.text
}

/** `dist/admin/`: the bundled script beside the page's HTML template and style sheet. */
export const writeAdmin = async (packageDirectory: string): Promise<void> => {
  const out = join(packageDirectory, "dist", "admin")
  await mkdir(out, { recursive: true })
  await Promise.all([
    bundleAdmin(packageDirectory).then((text) => writeFile(join(out, "admin.js"), text)),
    ...ADMIN_FILES.map((name) => copyFile(join(packageDirectory, "src", "admin", name), join(out, name)))
  ])
}
