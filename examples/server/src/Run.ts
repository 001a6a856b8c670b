/**
 * A command of `crm` as the process: logged in the configured format, a failure said in it (rather
 * than by `runMain`) with exit code 1. Both built entries, `cli.ts` and `Commands.ts`, run theirs
 * through it.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Log from "./Log.js"
import { leave, WorkerConfig } from "./Workers.js"

const failed = (cause: Cause.Cause<unknown>) =>
  Cause.isInterruptedOnly(cause)
    ? Effect.failCause(cause)
    : Effect.zipRight(
        Effect.logError("failed", cause),
        Effect.sync(() => {
          process.exitCode = 1
        })
      )

export const runCommand = (command: Effect.Effect<void, unknown>) => {
  // As console.log does: a reader of the log that went away (EPIPE) must not take the server down.
  process.stdout.on("error", () => {})
  Effect.flatMap(Effect.all([Log.config(process.stdout), WorkerConfig]), ([settings, worker]) =>
    command.pipe(
      Effect.catchAllCause(failed),
      Effect.provide(Log.layer(Option.isSome(worker) ? { ...settings, worker: worker.value } : settings))
    )
  ).pipe(Effect.ensuring(leave), NodeRuntime.runMain({ disablePrettyLogger: true }))
}
