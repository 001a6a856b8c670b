/**
 * `crm-mcp`: the CRM's assistant tools over stdio for desktop assistants.
 *
 *   CRM_API_KEY  the key (required); its scopes decide what the assistant may do
 *   CRM_URL      a hosted CRM (e.g. https://crm.example.com): bridge to its /api/mcp
 *   otherwise    local: DATABASE_URL (PostgreSQL) or CRM_DATA_DIR (PGlite, default ./data),
 *                CRM_RATE_LIMIT (requests per key per minute, default 120)
 *
 * stdout carries the protocol only: every log line goes to stderr.
 */
import { pathToFileURL } from "node:url"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Local from "./Local.js"
import * as Remote from "./Remote.js"

const Settings = Config.all({
  apiKey: Config.redacted("CRM_API_KEY"),
  url: Config.option(Config.string("CRM_URL")),
  rateLimit: Config.integer("CRM_RATE_LIMIT").pipe(Config.withDefault(120)),
  storage: Local.StorageConfig
})

const program = Effect.gen(function* () {
  const settings = yield* Settings
  if (Option.isSome(settings.url)) {
    const url = settings.url.value
    const apiKey = Redacted.value(settings.apiKey)
    return yield* Effect.promise(() => Remote.bridge({ url, apiKey }))
  }
  return yield* Local.run(settings)
})

export const main = async (): Promise<void> => {
  // Anything printing to stdout would corrupt the protocol stream: send it to stderr instead.
  console.log = console.error
  console.info = console.error
  console.debug = console.error
  const exit = await Effect.runPromiseExit(
    program.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))))
  )
  if (Exit.isSuccess(exit)) process.exit(0)
  const failure = Cause.failureOption(exit.cause)
  const message = Option.isSome(failure)
    ? failure.value instanceof Error
      ? failure.value.message
      : String(failure.value)
    : Cause.pretty(exit.cause)
  process.stderr.write(`crm-mcp: ${message}\n`)
  process.exit(1)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main()
