import * as Context from "effect/Context"
import type * as Pg from "pg"

/**
 * The pool of `Storage.layerServer`, in the context its ports are built in, whichever statement
 * path it takes: the gauges read its counts (`StoreGauges`). Absent on PGlite and on a `SqlClient`
 * a user provides, which have no pool of ours.
 */
export class ServerPool extends Context.Tag("@crm/storage-pg/ServerPool")<ServerPool, Pg.Pool>() {}
