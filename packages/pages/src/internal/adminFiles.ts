/**
 * Where the admin page's three files come from. Built (this module as JavaScript: the package's
 * `dist/`, or bundled into an application), they are read from the package's `dist/admin/`, which
 * its build wrote. Run from its TypeScript sources, the package does not trust a `dist/` (a stale
 * one would serve an old page): the script is bundled from `src/admin/` at its first request
 * (scripts/bundleAdmin.ts, with esbuild, a development tool), the HTML and the style sheet are read
 * from beside it.
 */
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export type AdminFile = "admin.js" | "admin.html" | "admin.css"

const FROM_SOURCES = import.meta.url.endsWith(".ts")

/** The package's own directory, wherever this module is loaded from. */
const packageDirectory = () => dirname(createRequire(import.meta.url).resolve("@crm/pages/package.json"))

interface Bundler {
  readonly bundleAdmin: (packageDirectory: string) => Promise<string>
}

/**
 * Imported by a path made at run time, so that no bundler (the package's, an application's)
 * follows it into esbuild: built code never takes this branch.
 */
const bundleFromSources = async (directory: string): Promise<string> => {
  const script = fileURLToPath(new URL("../../scripts/bundleAdmin.ts", import.meta.url))
  const { bundleAdmin } = (await import(/* @vite-ignore */ script)) as Bundler
  return bundleAdmin(directory)
}

export const readAdminFile = async (name: AdminFile): Promise<string> => {
  const directory = packageDirectory()
  if (!FROM_SOURCES) return readFile(join(directory, "dist", "admin", name), "utf8")
  return name === "admin.js" ? bundleFromSources(directory) : readFile(join(directory, "src", "admin", name), "utf8")
}
