/**
 * What `crm serve` and `crm migrate` run: the server on the configured store (or a supervisor of
 * several, `Workers.ts`), and the migrations alone. Loaded at every start, so it imports nothing of
 * the command-line parser (`Commands.ts`).
 */

import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Wire } from "@crm/core"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Server from "./Server.js"
import * as Storage from "./Storage.js"
import * as WebhookWorker from "./WebhookWorker.js"
import * as Workers from "./Workers.js"

/** A comma-separated list, blank entries left out; unset, empty. */
const commaSeparated = (config: Config.Config<string>): Config.Config<ReadonlyArray<string>> =>
  config.pipe(
    Config.withDefault(""),
    Config.map((value) =>
      value
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry.length > 0)
    )
  )

/** An origin as a browser names it in `Origin`: http(s), host and port, nothing more (a trailing slash aside). */
const isOrigin = (value: string): boolean => {
  if (!URL.canParse(value)) return false
  const url = new URL(value)
  return (url.protocol === "http:" || url.protocol === "https:") && url.href === `${url.origin}/`
}

export const ServeConfig = Config.all({
  port: Config.integer("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  adminToken: Config.option(Config.redacted("CRM_ADMIN_TOKEN")),
  rateLimit: Config.integer("CRM_RATE_LIMIT").pipe(Config.withDefault(120)),
  trustedProxies: Config.string("CRM_TRUSTED_PROXIES").pipe(commaSeparated),
  publicUrl: Config.option(Config.string("CRM_PUBLIC_URL")),
  allowedOrigins: Config.string("CRM_ALLOWED_ORIGINS").pipe(
    commaSeparated,
    Config.validate({
      message: "CRM_ALLOWED_ORIGINS must be comma-separated origins (https://host[:port])",
      validation: (origins) => origins.every(isOrigin)
    })
  ),
  metricsPort: Config.option(Config.integer("CRM_METRICS_PORT")),
  allowPrivateTargets: Config.boolean("CRM_WEBHOOK_ALLOW_PRIVATE_TARGETS").pipe(Config.withDefault(false)),
  webhookConcurrency: Config.integer("CRM_WEBHOOK_CONCURRENCY").pipe(
    Config.withDefault(WebhookWorker.DEFAULTS.concurrency),
    Config.validate({ message: "CRM_WEBHOOK_CONCURRENCY must be at least 1", validation: (n) => n >= 1 })
  )
})

/** Mail goes out through SMTP when CRM_SMTP_URL is set; otherwise it is only recorded as delivered. */
const MailConfig = Config.all({
  smtpUrl: Config.option(Config.redacted("CRM_SMTP_URL")),
  from: Config.string("CRM_MAIL_FROM").pipe(Config.withDefault("crm@localhost"))
})

/**
 * Whom the first start of an empty store invites as its organisation's owner. Read by `crm serve`
 * alone, so that an admin command is not refused over it.
 */
const OwnerConfig = Config.option(
  Config.string("CRM_OWNER_EMAIL").pipe(
    Config.map((email) => email.trim()),
    Config.validate({
      message: "CRM_OWNER_EMAIL must be an email address",
      validation: (email) => Wire.EmailInput.safeParse(email).success
    })
  )
)

/**
 * `npm run build` leaves an empty, migrated PGlite data directory next to the built command line
 * (`dist/pglite-template`). A new data directory starts as a copy of it (made by storage-pg under
 * the directory's lock, so two processes starting at once cannot both copy). Migrations added
 * since the build are applied on top as usual. Run from the sources there is no template, and
 * PGlite runs initdb.
 */
const templateDir = () => fileURLToPath(new URL("./pglite-template", import.meta.url))

/**
 * `npm run build` also leaves the OpenAPI document beside the built command line
 * (`dist/openapi.json`, printed by `crm openapi` from the same bundle): served as it is, it spares
 * making it at start. Run from the sources there is none, and it is made at the first request.
 */
const prebuiltOpenApi = (): string | undefined => {
  const file = new URL("./openapi.json", import.meta.url)
  return existsSync(file) ? readFileSync(file, "utf8") : undefined
}

/** One server process: today's `crm serve`, and each worker of a supervisor. */
const serveOne = Effect.gen(function* () {
  const { publicUrl, metricsPort, allowPrivateTargets, webhookConcurrency, ...options } = yield* ServeConfig
  const openApiDocument = prebuiltOpenApi()
  const storage = yield* Storage.StorageConfig
  const mail = yield* MailConfig
  const ownerEmail = yield* OwnerConfig
  const worker = yield* Workers.WorkerConfig
  yield* Workers.ignoreRepeatedSignals
  yield* Effect.logInfo(`storage: ${Storage.describe(storage)}`)
  return yield* Layer.build(
    Server.layer(
      {
        ...options,
        // Of several workers starting at once on an empty store, one makes its first organisation.
        bootstrap: Option.isNone(worker) || worker.value === 1,
        ...(Option.isSome(ownerEmail) ? { ownerEmail: ownerEmail.value } : {}),
        ...(openApiDocument === undefined ? {} : { openApiDocument }),
        ...(Option.isSome(publicUrl) ? { publicUrl: publicUrl.value } : {}),
        ...(Option.isSome(metricsPort) ? { metricsPort: metricsPort.value } : {}),
        webhooks: { allowPrivateTargets, concurrency: webhookConcurrency },
        mail: Option.isSome(mail.smtpUrl) ? { smtp: { url: mail.smtpUrl.value, from: mail.from } } : {}
      },
      Storage.layerFrom(storage, { templateDir: templateDir() })
    )
  ).pipe(
    Effect.zipRight(Workers.announceReady),
    Effect.zipRight(Effect.never),
    Effect.scoped,
    // Told once everything has closed (requests answered, workers stopped, the database let go).
    Effect.onInterrupt(() => Effect.logInfo("stopped"))
  )
})

/**
 * `crm serve`: one server process, or with `workers` (`--workers`, else CRM_WORKERS) above 1 a
 * supervisor of that many (`Workers.ts`). A worker is a server whatever CRM_WORKERS says.
 */
export const serveWith = (workers: Option.Option<number>) =>
  Effect.gen(function* () {
    if (Workers.isWorker()) return yield* serveOne
    const count = Option.isSome(workers) ? workers.value : yield* Workers.WorkersConfig
    return yield* count === 1 ? serveOne : Workers.supervise(count)
  })

export const serve = serveWith(Option.none())

export const migrate = Effect.gen(function* () {
  const storage = yield* Storage.StorageConfig
  yield* Layer.build(Storage.layerFrom(storage, { templateDir: templateDir() })).pipe(Effect.scoped)
  yield* Effect.logInfo(`migrations applied: ${Storage.describe(storage)}`)
})
