/**
 * `crm`, the command line's entry (`bin/crm.js` runs it built). A bare `crm serve`, what every
 * server process runs, starts the server at once; every other command runs `Commands.ts`, the
 * parser and the command table, which the build makes an entry of its own: `crm serve` never
 * reads it. (A chunk shared by the two, tried first, cost 4-8 % more CPU per request than one
 * file: calls between chunks are calls between modules. docs/benchmarks.md: start time.)
 */
import { fileURLToPath } from "node:url"
import { runCommand } from "./Run.js"
import { serve } from "./Serve.js"

// Not a literal: the bundler would otherwise bundle it into this file. A path, not a URL: the
// built server's `import()`s are `require`s (tsup.config.ts).
const commands = fileURLToPath(new URL("./Commands.js", import.meta.url))

export const main = async (argv: ReadonlyArray<string>): Promise<void> => {
  if (argv.length === 1 && argv[0] === "serve") return runCommand(serve)
  const { main } = (await import(commands)) as typeof import("./Commands.js")
  return main(argv)
}
