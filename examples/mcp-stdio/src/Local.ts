/**
 * Local mode: the tools in this process, on the CRM's own store (the same storage settings as the
 * server). The key is authenticated at start (a bad key stops the process) and again on every tool
 * call, which spends one unit of its budget and is checked against its scopes and plan exactly as
 * over HTTP.
 */
import { Access, Kernel } from "@crm/core"
import { McpServer } from "@crm/mcp"
import * as StoragePg from "@crm/storage-pg"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stdio from "./Stdio.js"

/**
 * Which store: PostgreSQL when DATABASE_URL is set, else PGlite in CRM_DATA_DIR (default ./data).
 * The same variables and the same rule (`StoragePg.layerFor`) as the server's; an example may not
 * import another example. No memory store: a fresh memory store holds no key to authenticate.
 */
export const StorageConfig = Config.all({
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  dataDir: Config.string("CRM_DATA_DIR").pipe(Config.withDefault("./data"))
})

export class BadKey extends Error {}

/** Serves stdio until the assistant closes it. */
const serve = (apiKey: Redacted.Redacted<string>) =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    // A local process: the key's IP allow-list is checked against the loopback address.
    const principal = yield* access
      .authenticate(Redacted.value(apiKey), "127.0.0.1")
      .pipe(
        Effect.catchTag("MissingBearerToken", "InvalidApiKey", "ExpiredApiKey", (error) =>
          Effect.fail(new BadKey(`CRM_API_KEY was refused (${error.code}): ${String(error.detail)}`))
        )
      )
    const runtime = yield* Effect.runtime<Kernel.Services>()
    // Every tool call is a request: admitted as REST admits one (the key again, one unit of budget).
    const beforeCall = Effect.map(
      access.admit(Redacted.value(apiKey), "127.0.0.1", true),
      (admitted) => admitted.principal
    )
    const server = yield* Effect.promise(() =>
      McpServer.make().connect(Stdio.transport(), { principal, beforeCall }, runtime)
    )
    yield* Effect.logInfo(`serving the CRM of "${principal.organisation.name}" over stdio`)
    yield* Effect.async<void>((resume) => {
      server.onclose = () => resume(Effect.void)
    })
  })

export const run = (options: {
  readonly apiKey: Redacted.Redacted<string>
  readonly rateLimit: number
  readonly storage: Config.Config.Success<typeof StorageConfig>
}) =>
  serve(options.apiKey).pipe(
    Effect.provide(
      Kernel.layerWith({ rateLimit: options.rateLimit }).pipe(
        Layer.provideMerge(StoragePg.layerFor({ url: options.storage.databaseUrl, dataDir: options.storage.dataDir }))
      )
    ),
    Effect.provide(Layer.setTracerEnabled(false))
  )
