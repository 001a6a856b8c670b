/**
 * Copies what `node examples/server/bin/crm.js serve` reads at run time into a directory, laid out
 * as in the repository, for the container image's runtime stage (see the Dockerfile). Run after
 * `npm run build`:
 *
 *   node --import tsx examples/server/scripts/runtimeFiles.ts /runtime
 *
 * What it copies: the command and its bundle (`bin/`, `dist/`, whose own `package.json` makes the
 * bundle CommonJS for its code cache, and `package.json`); each package the bundle leaves to node_modules (`EXTERNAL` of tsup.config.ts) that is
 * installed, with its production dependencies as the lock file installed them (`npm query`); and
 * the few files the server finds by path at run time rather than imports, and only those of their
 * packages (Redoc's package alone brings some 85 MB of dependencies for bundlers, the server reads
 * one file of it).
 */
import { execFileSync } from "node:child_process"
import { cpSync, existsSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { EXTERNAL } from "../tsup.config.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const server = relative(root, fileURLToPath(new URL("../", import.meta.url)))

/** Files looked up by path at run time, by package; each must exist, so a renamed one fails the build. */
const LOOKED_UP: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  // `/docs`: Redoc's standalone bundle and its version (packages/pages/src/Pages.ts, `findRedoc`).
  ["redoc", ["package.json", "LICENSE", "bundles/redoc.standalone.js", "bundles/redoc.standalone.js.LICENSE.txt"]],
  // The PDFs' typeface (packages/pdf/src/DocumentPdf.ts, `FONTS`).
  ["dejavu-fonts-ttf", ["package.json", "LICENSE", "ttf/DejaVuSans.ttf", "ttf/DejaVuSans-Bold.ttf"]],
  // The `/admin` and `/settings` pages' files as its build wrote them, found beside the package's
  // manifest (packages/pages/src/internal/pageFiles.ts); the root's `npm run build` builds them.
  ["@crm/pages", ["package.json", "dist/admin", "dist/settings"]]
]

/** Where each external package and each of its dependencies is installed, relative to the root. */
const installedClosure = (names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const roots = `.workspace > :is(${names.map((name) => `[name="${name}"]`).join(", ")})`
  const found = JSON.parse(
    execFileSync("npm", ["query", `${roots}, ${roots} *`], { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 })
  ) as ReadonlyArray<{ readonly location: string }>
  return [...new Set(found.map((node) => node.location))].sort()
}

const copy = (path: string, target: string) =>
  // Dereferenced: the workspace packages are symlinks in node_modules. A package's own nested
  // node_modules are left out here; those of them it needs are in the closure, copied in turn.
  cpSync(join(root, path), join(target, path), {
    recursive: true,
    dereference: true,
    filter: (source) => !relative(join(root, path), source).split("/").includes("node_modules")
  })

const main = (targetArgument: string | undefined) => {
  if (targetArgument === undefined) throw new Error("usage: runtimeFiles.ts <directory>")
  const target = resolve(targetArgument)
  if (!existsSync(join(root, server, "dist", "cli.js"))) throw new Error("the server is not built: npm run build")
  for (const path of ["bin", "dist", "package.json"]) copy(join(server, path), target)
  const packages = installedClosure(EXTERNAL)
  for (const path of packages) copy(path, target)
  for (const [name, files] of LOOKED_UP) {
    for (const file of files) {
      const path = join("node_modules", name, file)
      if (!existsSync(join(root, path))) throw new Error(`${path} is missing: the server reads it at run time`)
      copy(path, target)
    }
  }
  process.stdout.write(
    `copied the server and ${packages.length} packages (${EXTERNAL.join(", ")} and their dependencies) to ${target}\n`
  )
}

main(process.argv[2])
