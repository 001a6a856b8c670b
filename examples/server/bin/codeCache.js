// Loads a CommonJS bundle (`dist/cli.js`) as node would, but compiled with V8's code cache: the
// bytecode of every function the last start compiled, so that this one compiles almost nothing.
// Node 20 has no compile cache of its own (`module.enableCompileCache` came in node 22) and keeps
// none for ES modules, hence a script and `vm.Script`'s `cachedData`. Compiling the bundle was
// about a third of a start (docs/benchmarks.md: start time).
//
// The cache is a file beside the bundle (`dist/.cache`, rewritten when the bundle changes), else in the
// user's cache directory when the installation is read-only (a container's image). It is only a
// cache: one that cannot be read or written, or that V8 refuses (another node, other V8 flags),
// costs the start its compilation and nothing else.
import { createHash } from "node:crypto"
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { basename, dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import { pathToFileURL } from "node:url"
import vm from "node:vm"

// Written once the server has started and served its first requests, so that the cache holds the
// functions they compiled too, not only the bundle's evaluation. Making it holds the event loop for
// 25-40 ms, and every request in flight with it, so it waits for a second in which the loop was
// mostly idle: a server loaded from its start wrote it in the middle of the load, 3 s in
// (docs/benchmarks.md, ninth pass). One that is never quiet writes it after WRITE_BY_MS.
const WRITE_AFTER_MS = 3000
const QUIET_UTILIZATION = 0.5
const WRITE_BY_MS = 600_000

const whenQuiet = (write) => {
  const since = performance.now()
  let last = performance.eventLoopUtilization()
  const check = () => {
    const now = performance.eventLoopUtilization()
    const { utilization } = performance.eventLoopUtilization(now, last)
    last = now
    if (utilization < QUIET_UTILIZATION || performance.now() - since >= WRITE_BY_MS) write()
    else setTimeout(check, 1000).unref()
  }
  setTimeout(check, WRITE_AFTER_MS).unref()
}

const userCache = () => {
  try {
    return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "crm")
  } catch {
    // A user without a home directory (a container run under an unknown uid).
    return undefined
  }
}

const directories = (bundle) => [join(dirname(bundle), ".cache"), userCache()].filter((path) => path !== undefined)

/**
 * The cache's name: one file per bundle path, node and V8 flags, rewritten in place when the bundle
 * changes. Its first line says which build of the bundle it was made from.
 */
const cacheName = (bundle) =>
  `${basename(bundle)}-${createHash("sha256")
    .update(
      [bundle, process.version, process.arch, process.execArgv.join(" "), process.env.NODE_OPTIONS ?? ""].join("\0")
    )
    .digest("hex")
    .slice(0, 16)}.v8`

const read = (path, build) => {
  try {
    const file = readFileSync(path)
    const newline = file.indexOf(10)
    return newline !== -1 && file.toString("latin1", 0, newline) === build ? file.subarray(newline + 1) : undefined
  } catch {
    return undefined
  }
}

const save = (paths, build, data) => {
  for (const path of paths) {
    try {
      mkdirSync(dirname(path), { recursive: true })
      // Renamed into place, so that a start at the same moment reads a whole cache or none.
      const partial = `${path}.${process.pid}`
      writeFileSync(partial, Buffer.concat([Buffer.from(`${build}\n`, "latin1"), data]))
      renameSync(partial, path)
      return
    } catch {
      // Not writable here: the next place, or no cache.
    }
  }
}

/**
 * The bundle's exports. `write`: whether this process makes the cache when there is none (or V8
 * refused it): the server does, a command that runs another bundle would leave a poorer one.
 */
export const load = (bundle, { write }) => {
  const require = createRequire(bundle)
  // Node maps stack traces through source maps only for the modules it loads itself.
  if (process.sourceMapsEnabled) return require(bundle)
  const { size, mtimeMs } = statSync(bundle)
  const build = `${size} ${mtimeMs}`
  const name = cacheName(bundle)
  const paths = directories(bundle).map((directory) => join(directory, name))
  let cachedData
  for (const path of paths) {
    cachedData = read(path, build)
    if (cachedData !== undefined) break
  }
  const source = readFileSync(bundle, "utf8")
  // CommonJS's own wrapper: the script is one function of the module's variables.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: pathToFileURL(bundle).href,
    cachedData
  })
  const module = { exports: {} }
  script.runInThisContext()(module.exports, require, module, bundle, dirname(bundle))
  if (write && (cachedData === undefined || script.cachedDataRejected)) {
    whenQuiet(() => save(paths, build, script.createCachedData()))
  }
  return module.exports
}
