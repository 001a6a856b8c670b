#!/usr/bin/env node
// Runs the built tools (`dist/main.js`, made by `npm run build`, which `npm install` runs too).
// Development and tests run the TypeScript sources through tsx instead; this file never does.
// stdout carries the protocol only: the message below goes to stderr.
import { existsSync } from "node:fs"
import { setFlagsFromString } from "node:v8"

// Local mode opens PGlite: its WebAssembly is kept at V8's baseline code, as the server's bin
// explains (about 0.13 s sooner to the first tools/list here, 590 ms against 720).
const given = `${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`
if (!/liftoff/.test(given)) setFlagsFromString("--liftoff-only")

const built = new URL("../dist/main.js", import.meta.url)
if (!existsSync(built)) {
  process.stderr.write(
    "crm-mcp: not built (examples/mcp-stdio/dist/main.js is missing).\n" +
      "Run `npm run build` in the repository root (npm install runs it too), then try again.\n"
  )
  process.exit(1)
}
const { main } = await import(built.href)
await main()
