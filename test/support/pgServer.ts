/**
 * The suites that need a PostgreSQL server of their own (`*.pg.test.ts`: several server processes
 * on one database, the database going away, a statement past its timeout). They run wherever a
 * server answers: the one DATABASE_URL names, else the local one (`LOCAL_SERVER_URL`), each suite
 * on a fresh database it drops after, copied from the run's migrated template. Where none answers
 * they are skipped and say why in their names; `globalSetup.ts` asks once per run and says so at
 * the start.
 */
import { describe, inject } from "vitest"
import { createDatabase, freshDatabase } from "./pgDatabase.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** The server the `*.pg.test.ts` suites run on; undefined when none answers. */
    readonly pgServer: string | undefined
    /** Why they are skipped, when they are. */
    readonly pgServerMissing: string
  }
}

/** `describe(name, suite)` where a server answers; skipped, with the reason in its name, where none does. */
export const describeOnServer = (name: string, suite: () => void): void => {
  if (inject("pgServer") === undefined) describe.skip(`${name} (${inject("pgServerMissing")}; skipped)`, suite)
  else describe(name, suite)
}

/** The server's URL, for the suites `describeOnServer` registers. */
export const pgServerUrl = (): string => {
  const url = inject("pgServer")
  if (url === undefined) throw new Error(inject("pgServerMissing"))
  return url
}

const template = (): { readonly template?: string } => {
  const name = inject("serverTemplate")
  return name === undefined ? {} : { template: name }
}

/** A new migrated database on that server (a copy of the run's template), with a `drop` to call. */
export const createServerDatabase = () => createDatabase(pgServerUrl(), template())

/** `createServerDatabase` as a scoped effect: the database is dropped when the scope closes. */
export const freshServerDatabase = () => freshDatabase(pgServerUrl(), template())
