/**
 * The server as built JavaScript: `bin/crm.js` runs `dist/cli.js`. `npm install` builds it (the
 * root `prepare` script runs `npm run build`); after changing a source, run `npm run build` again.
 * Development and tests run the TypeScript sources through tsx and vitest instead.
 *
 * Bundled: the workspace packages (`@crm/*`, whose exports point at their TypeScript sources for
 * the tests) and the plain-JavaScript npm packages under them. Loaded as separate files, Effect and
 * its platform packages alone are several hundred ES modules, and resolving, reading and compiling
 * them took longer than the rest of start-up together; one file loads in a fraction of that.
 *
 * Left to node_modules (`EXTERNAL`): packages that carry files besides their JavaScript (PGlite's
 * WebAssembly and data files, pdfkit's font metrics, read from beside its own module) or an
 * optional native part (`pg` tries `pg-native`). The DejaVu fonts of the PDFs are found at run time
 * (`createRequire(...).resolve`), so they are never bundled either. The build fails
 * if one of those imports would find another copy from `dist/` than from the file that imports it
 * (a version nested under some package's own node_modules), instead of running the wrong one.
 *
 * The migrations are listed by hand (`Migrator.fromRecord`), so they are bundled with the storage
 * package. `examples/mcp-stdio` builds the same way (`bundle` below).
 */
import { spawn } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig, type Options } from "tsup"

type Plugin = NonNullable<Options["esbuildPlugins"]>[number]

export const EXTERNAL: ReadonlyArray<string> = ["@electric-sql/pglite", "pg", "pg-native", "pdfkit"]

const isExternal = (path: string) => EXTERNAL.some((name) => path === name || path.startsWith(`${name}/`))

/**
 * Leaves `EXTERNAL` to node_modules, after checking that each import resolves to the same file from
 * the package's directory (what `dist/` resolves from: it holds no node_modules of its own).
 */
const keepExternal = (dir: string): Plugin => ({
  name: "crm-keep-external",
  setup(build) {
    const MARK = "crm-keep-external"
    const checked = new Set<string>()
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === MARK || !isExternal(args.path)) return undefined
      const key = `${args.resolveDir}\0${args.path}`
      if (!checked.has(key)) {
        const [fromImporter, fromPackage] = await Promise.all(
          [args.resolveDir, dir].map((resolveDir) =>
            build.resolve(args.path, { kind: args.kind, resolveDir, pluginData: MARK })
          )
        )
        if (fromImporter.errors.length > 0 || fromPackage.errors.length > 0 || fromImporter.path !== fromPackage.path) {
          const where = (path: string) => (path === "" ? "nothing" : path)
          const text = `${args.path} is ${where(fromImporter.path)} for ${args.importer} but ${where(fromPackage.path)} for ${dir}/dist: bundle it or align the versions`
          return { errors: [{ text }] }
        }
        checked.add(key)
      }
      return { path: args.path, external: true }
    })
  }
})

/** One self-contained ESM file per entry in `<dir>/dist`, for Node 20. */
export const bundle = (dir: string, entry: Record<string, string>): Options => ({
  entry,
  format: ["esm"],
  platform: "node",
  target: "node20",
  outDir: resolve(dir, "dist"),
  clean: true,
  splitting: false,
  bundle: true,
  // Everything is bundled but what `keepExternal` leaves out (tsup would leave out every dependency).
  noExternal: [/./],
  esbuildPlugins: [keepExternal(dir)],
  // The workspace packages are bundled from their sources (their `exports` condition), so the
  // server builds without building each package first.
  esbuildOptions(options) {
    options.conditions = ["@crm/source"]
  },
  // The CommonJS packages bundled in (ajv, ws, nodemailer...) `require` Node's built-in modules.
  banner: {
    js: 'import { createRequire as __crmCreateRequire } from "node:module";\nconst require = __crmCreateRequire(import.meta.url);'
  },
  removeNodeProtocol: false,
  // Names are kept (stack traces read), whitespace and redundant syntax go: about a third less to
  // read and compile at every start. `node --enable-source-maps` maps traces back to the sources.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  dts: false,
  shims: false,
  silent: true
})

/** Runs the built command line, as `npm start` would, collecting what it prints. */
const crm = (dir: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = process.env) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((done, fail) => {
    const stdout: Array<Buffer> = []
    const stderr: Array<Buffer> = []
    const child = spawn(process.execPath, [resolve(dir, "bin", "crm.js"), ...args], { env, stdio: "pipe" })
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk))
    child.on("error", fail)
    child.on("close", (code) =>
      done({ code, stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString() })
    )
  })

/**
 * After the bundle, `crm migrate` on a new PGlite data directory, `dist/pglite-template`: a new data
 * directory starts as a copy of it (`templateDir` in src/Serve.ts), which spares the first start
 * PGlite's initdb. It also runs the bundle once: a build whose output cannot migrate fails here.
 */
const makePgliteTemplate = async (dir: string) => {
  const template = resolve(dir, "dist", "pglite-template")
  const env: NodeJS.ProcessEnv = { ...process.env, CRM_DATA_DIR: template }
  delete env.DATABASE_URL
  delete env.CRM_STORAGE
  const { code, stdout, stderr } = await crm(dir, ["migrate"], env)
  if (code !== 0) {
    rmSync(template, { recursive: true, force: true })
    throw new Error(`crm migrate for ${template} exited with ${code}:\n${stdout}${stderr}`)
  }
}

/** After the bundle, `crm openapi` into `dist/openapi.json`, which the built server serves (see src/cli.ts). */
const writeOpenApi = async (dir: string) => {
  const { code, stdout, stderr } = await crm(dir, ["openapi"])
  if (code !== 0) throw new Error(`crm openapi exited with ${code}:\n${stderr}`)
  // Parsed once here, so a build never ships a document the server would serve broken.
  writeFileSync(resolve(dir, "dist", "openapi.json"), JSON.stringify(JSON.parse(stdout)))
}

const here = dirname(fileURLToPath(import.meta.url))

/**
 * The OAuth authorization server's provider (oidc-provider, Koa, jose: a third of the bundle again)
 * as a file of its own, `dist/oauthProvider.js`, which `@crm/oauth` imports at the first
 * authorization: inlined, every start would read and compile it (docs/benchmarks.md: start time).
 */
const OAUTH_PROVIDER = resolve(here, "../../packages/oauth/src/Provider.ts")
const providerApart: Plugin = {
  name: "crm-oauth-provider-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/Provider\.js$/ }, (args) =>
      resolve(args.resolveDir, "Provider.ts") === OAUTH_PROVIDER && args.kind === "dynamic-import"
        ? { path: "./oauthProvider.js", external: true }
        : undefined
    )
  }
}
const bundled = bundle(here, {
  cli: "src/cli.ts",
  Commands: "src/Commands.ts",
  pdfWorker: resolve(here, "../../packages/pdf/src/pdfWorker.ts"),
  oauthProvider: OAUTH_PROVIDER
})

export default defineConfig({
  // `crm serve` runs cli.js alone; every other command runs Commands.js, a bundle of its own with
  // the command-line parser (src/cli.ts). pdfWorker.js is the PDF worker threads' entry, which the
  // PDF package finds beside the bundle that starts them (see packages/pdf/src/PdfWorkers.ts);
  // oauthProvider.js is the authorization server's provider (`providerApart`).
  ...bundled,
  esbuildPlugins: [...(bundled.esbuildPlugins ?? []), providerApart],
  // CommonJS, unlike the library packages: `bin/crm.js` compiles cli.js itself with V8's code
  // cache (`bin/codeCache.js`), which node 20 keeps for no ES module, and compiling the bundle was
  // about a third of every start (docs/benchmarks.md: start time). `dist/package.json` says so to
  // node, for the files it loads itself (the commands, the provider, the PDF workers).
  format: ["cjs"],
  outExtension: () => ({ js: ".js" }),
  esbuildOptions(options, context) {
    bundled.esbuildOptions?.(options, context)
    // The script's own file URL, as the module's was.
    options.define = { ...options.define, "import.meta.url": "__crmImportMetaUrl" }
    // `import()` as `require`: V8 drops what a dynamic import needs from a script compiled from its
    // cache (node 20: ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING); what the bundle imports so (the
    // commands, the provider, pdfkit) loads as CommonJS too.
    options.supported = { ...options.supported, "dynamic-import": false }
  },
  // Strict, as the modules were.
  banner: { js: '"use strict";\nconst __crmImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  onSuccess: async () => {
    writeFileSync(resolve(here, "dist", "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`)
    await makePgliteTemplate(here)
    await writeOpenApi(here)
  }
})
