/**
 * Where the pages' files (`/admin`'s, `/settings`'s) come from. Built (this module as JavaScript:
 * the package's `dist/`, or bundled into an application), they are read from the package's
 * `dist/<page>/`, which its build wrote. Run from its TypeScript sources, the package does not
 * trust a `dist/` (a stale one would serve an old page): the script and the style sheet are
 * bundled from `src/<page>/` at their first request (scripts/bundlePages.ts, with esbuild, a
 * development tool), the HTML is read from beside them.
 */
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export type PageName = "admin" | "settings"
export type PageFile = "js" | "html" | "css"

const FROM_SOURCES = import.meta.url.endsWith(".ts")

/** The package's own directory, wherever this module is loaded from. */
const packageDirectory = () => dirname(createRequire(import.meta.url).resolve("@crm/pages/package.json"))

interface Bundler {
  readonly bundlePage: (packageDirectory: string, page: PageName, kind: "js" | "css") => Promise<string>
}

/**
 * Imported by a path made at run time, so that no bundler (the package's, an application's)
 * follows it into esbuild: built code never takes this branch.
 */
const bundleFromSources = async (directory: string, page: PageName, kind: "js" | "css"): Promise<string> => {
  const script = fileURLToPath(new URL("../../scripts/bundlePages.ts", import.meta.url))
  const { bundlePage } = (await import(/* @vite-ignore */ script)) as Bundler
  return bundlePage(directory, page, kind)
}

export const readPageFile = async (page: PageName, file: PageFile): Promise<string> => {
  const directory = packageDirectory()
  if (!FROM_SOURCES) return readFile(join(directory, "dist", page, `${page}.${file}`), "utf8")
  return file === "html"
    ? readFile(join(directory, "src", page, `${page}.html`), "utf8")
    : bundleFromSources(directory, page, file)
}
