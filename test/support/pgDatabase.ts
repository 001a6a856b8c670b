/**
 * Throwaway databases on the PostgreSQL server named by DATABASE_URL, so that each suite (or case)
 * owns an empty store and nothing is left behind. The URL's own database is used only to run
 * CREATE DATABASE and DROP DATABASE.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import pg from "pg"

/** The server to test against, when there is one. */
export const serverUrl: string | undefined = process.env.DATABASE_URL || undefined

/**
 * The PostgreSQL server every machine here runs, for the suites that need a server of their own
 * (`pgServer.ts`) when DATABASE_URL names none.
 */
export const LOCAL_SERVER_URL = "postgres://postgres@127.0.0.1:5432/postgres"

/** Why no PostgreSQL server answers at `url` (its error), or undefined when one does. */
export const unanswered = async (url: string): Promise<string | undefined> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  // An error after connecting (the server going away) would otherwise be thrown at the process.
  client.on("error", () => {})
  try {
    await client.connect()
    await client.query("SELECT 1")
    return undefined
  } catch (error) {
    if (!(error instanceof Error)) return String(error)
    return error.message || ((error as { code?: string }).code ?? error.name)
  } finally {
    await client.end().catch(() => {})
  }
}

/** `url` with its database replaced by `database`. */
export const urlOf = (url: string, database: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${encodeURIComponent(database)}`
  return parsed.toString()
}

const admin = <A>(url: string, statement: (sql: PgClient.PgClient) => Effect.Effect<A, SqlError>) =>
  Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(url), maxConnections: 1 }), statement)).pipe(
    Effect.provide(Reactivity.layer)
  )

export interface Database {
  readonly name: string
  readonly url: string
}

/**
 * A new database `crm_test_<random>` on the server of `url` (a copy of `template` when given: a
 * migrated template copies in tens of milliseconds), dropped when the scope closes, with
 * `WITH (FORCE)` so that a connection someone forgot to close cannot keep it alive.
 */
export const freshDatabase = (
  url: string,
  options: { readonly template?: string } = {}
): Effect.Effect<Database, SqlError, Scope.Scope> =>
  Effect.suspend(() => {
    const name = `crm_test_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`
    return Effect.acquireRelease(
      admin(url, (sql) =>
        options.template === undefined
          ? sql`CREATE DATABASE ${sql(name)}`
          : sql`CREATE DATABASE ${sql(name)} TEMPLATE ${sql(options.template)}`
      ).pipe(Effect.map(() => ({ name, url: urlOf(url, name) }))),
      () =>
        admin(url, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).pipe(
          Effect.catchAllCause((cause) => Effect.logWarning(`could not drop test database ${name}`, cause))
        )
    )
  })

/** `freshDatabase` for `beforeAll`/`afterAll`: the database and a `drop` to call when done. */
export const createDatabase = async (
  url: string,
  options: { readonly template?: string } = {}
): Promise<Database & { readonly drop: () => Promise<void> }> => {
  const scope = Effect.runSync(Scope.make())
  const database = await Effect.runPromise(Scope.extend(freshDatabase(url, options), scope))
  return { ...database, drop: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
