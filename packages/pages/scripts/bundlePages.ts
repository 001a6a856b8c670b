/**
 * The pages for the browser (`/admin`, `/settings`): each page's `src/<page>/main.ts` and everything
 * it imports (`@crm/client`, openapi-fetch) as one ES module, and its style sheet with what it
 * imports (`/settings` builds on `/admin`'s), so that a page loads nothing but its own three files
 * and its policy stays `script-src 'self'`. The package's build writes them to `dist/<page>/` with
 * the HTML (`writePages`); the page server, when it runs from the TypeScript sources (the tests, a
 * server under tsx), bundles them in memory at their first request (`bundlePage`, see
 * src/internal/pageFiles.ts). This file is build tooling: nothing built or installed imports it.
 */
import { copyFile, mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { build } from "esbuild"

export const PAGES = ["admin", "settings"] as const
export type PageName = (typeof PAGES)[number]

/** What a page's files are made from: its module and its style sheet, each with what it imports. */
const ENTRIES = { js: "main.ts", css: (page: PageName) => `${page}.css` }

export const bundlePage = async (packageDirectory: string, page: PageName, kind: "js" | "css"): Promise<string> => {
  const entry = kind === "js" ? ENTRIES.js : ENTRIES.css(page)
  const { outputFiles } = await build({
    entryPoints: [join(packageDirectory, "src", page, entry)],
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

/** `dist/<page>/`: each page's bundled script and style sheet beside its HTML template. */
export const writePages = async (packageDirectory: string): Promise<void> => {
  await Promise.all(
    PAGES.map(async (page) => {
      const out = join(packageDirectory, "dist", page)
      await mkdir(out, { recursive: true })
      await Promise.all([
        bundlePage(packageDirectory, page, "js").then((text) => writeFile(join(out, `${page}.js`), text)),
        bundlePage(packageDirectory, page, "css").then((text) => writeFile(join(out, `${page}.css`), text)),
        copyFile(join(packageDirectory, "src", page, `${page}.html`), join(out, `${page}.html`))
      ])
    })
  )
}
