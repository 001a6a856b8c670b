/**
 * `crm`, the command line's entry (`bin/crm.js` runs it built). A bare `crm serve`, what every
 * server process runs, starts the server at once; every other command loads the parser and the
 * command table first (`Commands.ts`): in the built server that is a chunk of its own, which
 * `crm serve` never reads (docs/benchmarks.md: start time).
 */

import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Log from "./Log.js"
import { serve } from "./Serve.js"

/** The process failed: said in the log's own format (rather than by `runMain`), and exit code 1. */
const failed = (cause: Cause.Cause<unknown>) =>
  Cause.isInterruptedOnly(cause)
    ? Effect.failCause(cause)
    : Effect.zipRight(
        Effect.logError("failed", cause),
        Effect.sync(() => {
          process.exitCode = 1
        })
      )

const command = (argv: ReadonlyArray<string>) =>
  argv.length === 1 && argv[0] === "serve"
    ? serve
    : Effect.flatMap(
        Effect.promise(() => import("./Commands.js")),
        (commands) => commands.run(argv)
      )

export const main = (argv: ReadonlyArray<string>) => {
  // As console.log does: a reader of the log that went away (EPIPE) must not take the server down.
  process.stdout.on("error", () => {})
  return Effect.flatMap(Log.config(process.stdout), (settings) =>
    command(argv).pipe(Effect.catchAllCause(failed), Effect.provide(Log.layer(settings)))
  ).pipe(NodeRuntime.runMain({ disablePrettyLogger: true }))
}
