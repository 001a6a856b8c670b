/**
 * `crm`'s commands, options and arguments (`@effect/cli`): serve, migrate, print the OpenAPI
 * document, and the organisation, key, rate, quote and invoice commands as thin clients of the
 * admin API (so the command line and a settings page go through the same rules). `cli.ts` runs
 * this file for every command but a bare `crm serve`; built, it is an entry of its own.
 */

import { readFileSync } from "node:fs"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import type { ReadableStream as NodeReadableStream } from "node:stream/web"
import { Api } from "@crm/http"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { runCommand } from "./Run.js"
import { migrate, ServeConfig, serveWith } from "./Serve.js"
import { DEFAULT_OWNER_EMAIL } from "./Server.js"
import * as Workers from "./Workers.js"

/** What the commands read from the environment, shown under `crm --help`. */
const ENVIRONMENT = `Environment:
  PORT (3000), HOST (127.0.0.1), DATABASE_URL, CRM_DATA_DIR (./data), CRM_STORAGE (pglite|postgres|memory),
  CRM_ADMIN_TOKEN (enables the admin API; the org and key commands send it),
  CRM_TRUSTED_PROXIES (comma-separated proxy addresses/CIDRs whose X-Forwarded-For is believed),
  CRM_RATE_LIMIT (requests per key per rolling minute, default 120),
  CRM_SMTP_URL (smtp://user:pass@host:587; unset: mail is recorded as delivered, not sent), CRM_MAIL_FROM,
  CRM_URL (admin commands: the server to talk to, default http://HOST:PORT),
  CRM_PUBLIC_URL (where the CRM is served, default http://HOST:PORT: the links people are mailed, Secure cookies
    and https-only webhook targets when https),
  CRM_ALLOWED_ORIGINS (comma-separated origins besides CRM_PUBLIC_URL's whose pages may call /api/mcp),
  CRM_OWNER_EMAIL (whom the first start of an empty store invites as owner, default ${DEFAULT_OWNER_EMAIL}),
  CRM_WEBHOOK_ALLOW_PRIVATE_TARGETS (1 lets webhooks target private addresses: local development only),
  CRM_WEBHOOK_CONCURRENCY (hooks in delivery at once per process, default 16),
  CRM_STATEMENT_TIMEOUT_MS (PostgreSQL: longest a statement may run before it answers 503, default 30000; 0: none),
  CRM_DATABASE_POOLER (none|transaction: "transaction" behind PgBouncer in transaction mode, default none;
    statements then go unnamed, and the statement timeout is the database role's: docs/hosting.md),
  CRM_DATABASE_POOL_SIZE (PostgreSQL connections per server process, default 10; as many again to a standby),
  CRM_READ_DATABASE_URL (a hot standby of DATABASE_URL that answers the REST API's GETs; a key's reads never miss
    its own writes), CRM_READ_MAX_LAG_MS (how far behind it may be and still answer, default 5000),
  CRM_METRICS_PORT (serves GET /metrics without the admin token on this port, on HOST; worker k of several: this + k - 1),
  CRM_WORKERS (server processes, as serve --workers: N, or auto for one per core; default 1; more than 1 needs
    DATABASE_URL),
  CRM_LOG_LEVEL (trace|debug|info|warn|error|silent, default info),
  CRM_LOG_FORMAT (json|pretty; default pretty on a terminal, JSON otherwise)
`

class CliError {
  readonly _tag = "CliError"
  constructor(readonly message: string) {}
}

/** A request to the admin API of the server `CRM_URL` names, with the admin token. */
const adminFetch = (
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: RequestInit["body"] }
) =>
  Effect.gen(function* () {
    const options = yield* ServeConfig
    const base = yield* Config.string("CRM_URL").pipe(Config.withDefault(`http://${options.host}:${options.port}`))
    const token = options.adminToken
    if (Option.isNone(token)) return yield* Effect.fail(new CliError("set CRM_ADMIN_TOKEN to use the admin commands"))
    return yield* Effect.tryPromise({
      try: () =>
        fetch(`${base}/admin/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${Redacted.value(token.value)}`, ...init.headers },
          // A stream body (`crm org import`) is sent as it is read.
          ...(init.body === undefined ? {} : { body: init.body, duplex: "half" })
        } as RequestInit),
      catch: (error) => new CliError(`cannot reach ${base}: ${String(error)}`)
    })
  })

const adminCall = (method: string, path: string, body?: unknown) =>
  Effect.gen(function* () {
    const response = yield* adminFetch(
      method,
      path,
      body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }
    )
    const text = yield* Effect.promise(() => response.text())
    console.log(text === "" ? JSON.stringify({ status: response.status }) : text)
    if (!response.ok) return yield* Effect.fail(new CliError(`the server answered ${response.status}`))
  })

const readText = (file: string) =>
  Effect.try({
    try: () => readFileSync(file, "utf8"),
    catch: (error) => new CliError(`cannot read ${file}: ${String(error)}`)
  })

const readJson = (file: string) =>
  Effect.try({
    try: () => JSON.parse(readFileSync(file, "utf8")) as unknown,
    catch: (error) => new CliError(`cannot read ${file}: ${String(error)}`)
  })

const commaList = (value: string) =>
  value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)

/** The fields of a request body that were given: an option left out is not sent (the API's default holds). */
const given = (fields: Record<string, Option.Option<unknown>>) =>
  Object.fromEntries(
    Object.entries(fields).flatMap(([name, value]) => (Option.isSome(value) ? [[name, value.value]] : []))
  )

const idArg = (name: string) => Args.text({ name })

const serveCommand = Command.make(
  "serve",
  {
    workers: Options.text("workers").pipe(
      Options.withPseudoName("N|auto"),
      Options.withDescription("server processes: N, or auto for one per core (default CRM_WORKERS, else 1)"),
      Options.mapEffect((text) =>
        Either.mapLeft(Workers.parseCount(text), (message) => ValidationError.invalidValue(HelpDoc.p(message)))
      ),
      Options.optional
    )
  },
  ({ workers }) => serveWith(workers)
).pipe(
  Command.withDescription(
    "serve the REST API (PGlite in CRM_DATA_DIR, or DATABASE_URL; --workers N: N processes on DATABASE_URL)"
  )
)

const migrateCommand = Command.make("migrate", {}, () => migrate).pipe(
  Command.withDescription("apply database migrations and exit")
)

const openapiCommand = Command.make("openapi", {}, () =>
  Effect.sync(() => process.stdout.write(JSON.stringify(Api.openApiDocument())))
).pipe(Command.withDescription("print the OpenAPI document (what GET /api/v1/openapi.json serves)"))

const org = Command.make("org").pipe(
  Command.withDescription("organisations, through the admin API"),
  Command.withSubcommands([
    Command.make(
      "create",
      {
        name: Options.text("name"),
        settings: Options.optional(Options.file("settings", { exists: "yes" })),
        testMode: Options.boolean("test-mode")
      },
      ({ name, settings, testMode }) =>
        Effect.flatMap(Effect.transposeOption(Option.map(settings, readJson)), (document) =>
          adminCall("POST", "/organisations", {
            name,
            ...given({ settings: document, test_mode: testMode ? Option.some(true) : Option.none() })
          })
        )
    ).pipe(Command.withDescription("create an organisation")),
    Command.make("show", { id: idArg("ORG_ID") }, ({ id }) => adminCall("GET", `/organisations/${id}`)).pipe(
      Command.withDescription("show an organisation")
    ),
    Command.make(
      "clock",
      {
        id: idArg("ORG_ID"),
        frozenAt: Options.optional(Options.text("frozen-at")),
        advanceBy: Options.optional(Options.text("advance-by")),
        reset: Options.boolean("reset")
      },
      ({ id, frozenAt, advanceBy, reset }) =>
        reset
          ? adminCall("DELETE", `/organisations/${id}/clock`)
          : // Exactly one of the two is the API's rule; it answers 422 for none or both.
            adminCall("POST", `/organisations/${id}/clock`, given({ frozen_at: frozenAt, advance_by: advanceBy }))
    ).pipe(Command.withDescription("a test-mode organisation's clock: --frozen-at ISO | --advance-by P3D | --reset")),
    Command.make(
      "invite",
      {
        id: idArg("ORG_ID"),
        email: Options.text("email"),
        role: Options.choice("role", ["owner", "admin", "member"])
      },
      ({ id, email, role }) => adminCall("POST", `/organisations/${id}/invitations`, { email, role })
    ).pipe(
      Command.withDescription(
        "invite a person: --email E --role owner|admin|member; prints the invitation with its accept_url (shown once, also mailed)"
      )
    ),
    Command.make("settings", { id: idArg("ORG_ID"), file: Options.file("file", { exists: "yes" }) }, ({ id, file }) =>
      Effect.flatMap(readJson(file), (document) => adminCall("PUT", `/organisations/${id}/settings`, document))
    ).pipe(Command.withDescription("replace the settings document")),
    Command.make(
      "export",
      { id: idArg("ORG_ID"), includeSecrets: Options.boolean("include-secrets") },
      ({ id, includeSecrets }) =>
        Effect.gen(function* () {
          const response = yield* adminFetch(
            "GET",
            `/organisations/${id}/export${includeSecrets ? "?include_secrets=true" : ""}`,
            {}
          )
          if (!response.ok || response.body === null) {
            console.error(yield* Effect.promise(() => response.text()))
            return yield* Effect.fail(new CliError(`the server answered ${response.status}`))
          }
          // Written as it arrives: an export may be larger than this process should hold.
          const body = response.body
          yield* Effect.tryPromise({
            try: () => pipeline(Readable.fromWeb(body as NodeReadableStream), process.stdout),
            catch: (error) => new CliError(`the export was cut short: ${String(error)}`)
          })
        })
    ).pipe(
      Command.withDescription(
        "write the organisation as JSON lines to standard output (--include-secrets: hooks' secrets too)"
      )
    ),
    Command.make("import", {}, () =>
      Effect.flatMap(
        adminFetch("POST", "/organisations/import", {
          headers: { "content-type": "application/x-ndjson" },
          body: Readable.toWeb(process.stdin) as ReadableStream
        }),
        (response) =>
          Effect.gen(function* () {
            console.log(yield* Effect.promise(() => response.text()))
            if (!response.ok) return yield* Effect.fail(new CliError(`the server answered ${response.status}`))
          })
      )
    ).pipe(Command.withDescription("import an organisation exported by `crm org export`, read from standard input"))
  ])
)

const key = Command.make("key").pipe(
  Command.withDescription("API keys, through the admin API"),
  Command.withSubcommands([
    Command.make(
      "create",
      {
        id: idArg("ORG_ID"),
        scopes: Options.text("scopes").pipe(Options.withDefault("read")),
        name: Options.optional(Options.text("name")),
        expiresAt: Options.optional(Options.text("expires-at")),
        allowedIps: Options.optional(Options.text("allowed-ips"))
      },
      ({ id, scopes, name, expiresAt, allowedIps }) =>
        adminCall("POST", `/organisations/${id}/keys`, {
          scopes: commaList(scopes),
          ...given({ name, expires_at: expiresAt, allowed_ips: Option.map(allowedIps, commaList) })
        })
    ).pipe(
      Command.withDescription("create a key: --scopes read,write [--name] [--expires-at ISO] [--allowed-ips CIDR,...]")
    ),
    Command.make("revoke", { id: idArg("KEY_ID") }, ({ id }) => adminCall("DELETE", `/keys/${id}`)).pipe(
      Command.withDescription("revoke a key")
    )
  ])
)

const rates = Command.make("rates").pipe(
  Command.withDescription("exchange rates"),
  Command.withSubcommands([
    Command.make(
      "import",
      { format: Options.choice("format", ["cnb", "ecb"]), file: Args.file({ name: "FILE", exists: "yes" }) },
      ({ format, file }) =>
        Effect.flatMap(readText(file), (text) => adminCall("POST", "/exchange-rates", { format, text }))
    ).pipe(Command.withDescription("load central-bank exchange rates (CNB daily text, ECB euro CSV)"))
  ])
)

/** One subcommand per action, each `POST <path>/{id}/<action>` on the admin API. */
const actions = <const A extends string>(
  area: string,
  path: string,
  names: readonly [A, ...Array<A>],
  description: string
) =>
  Command.make(area).pipe(
    Command.withDescription(description),
    Command.withSubcommands(
      names.map((action) =>
        Command.make(action, { id: idArg(`${area.toUpperCase()}_ID`) }, ({ id }) =>
          adminCall("POST", `${path}/${id}/${action}`)
        )
      ) as [Command.Command<A, never, CliError | ConfigError.ConfigError, { readonly id: string }>]
    )
  )

const crm = Command.make("crm").pipe(
  Command.withDescription(`the CRM kernel's server and admin command line\n\n${ENVIRONMENT}`),
  Command.withSubcommands([
    serveCommand,
    migrateCommand,
    openapiCommand,
    org,
    key,
    rates,
    actions("quote", "/quotes", ["send", "accept", "reject", "cancel"], "what a person does with a quote"),
    actions(
      "invoice",
      "/invoices",
      ["cancel", "storno"],
      "cancel a draft invoice, or reverse an issued one by a storno"
    )
  ])
)

const app = Command.run(crm, { name: "crm", version: "0.1.0", executable: "crm" })

/** Runs the command `argv` names (`crm --help` for none); a refusal is printed and sets exit code 1. */
export const run = (argv: ReadonlyArray<string>) =>
  // `app` reads argv as process.argv has it, the runtime and the script first.
  app(["node", "crm", ...(argv.length === 0 ? ["--help"] : argv)]).pipe(
    Effect.catchIf(
      (error): error is CliError => error instanceof CliError,
      (error) =>
        Effect.sync(() => {
          console.error(error.message)
          process.exitCode = 1
        })
    ),
    // The parser has printed what it refused, with the usage.
    Effect.catchIf(ValidationError.isValidationError, () =>
      Effect.sync(() => {
        process.exitCode = 1
      })
    ),
    Effect.provide(NodeContext.layer)
  )

export const main = (argv: ReadonlyArray<string>) => runCommand(run(argv))
