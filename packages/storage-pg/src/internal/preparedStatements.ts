/**
 * Named (prepared) statements under `@effect/sql-pg`, part of the fast statement path
 * (`Storage.ServerOptions.statements: "fast"`; the plain path's pool has stock `pg.Client`s).
 *
 * What it does. `@effect/sql-pg` sends every statement unnamed, so PostgreSQL parses and plans it
 * again on every request. This `pg.Client` names each parameterised statement by its text, so the
 * driver sends Parse once per connection and only Bind/Execute afterwards; `@effect/sql-pg` above it
 * is unchanged (`PgClient.fromPool`). Statements without parameters keep the simple query protocol:
 * migrations are multi-statement scripts, and BEGIN/COMMIT gain nothing from a plan.
 *
 * Why it exists (docs/benchmarks.md, and the passes of its history by title). Named statements came
 * first of the changes measured together in the "First pass" ("What changed, in the order
 * measured", item 1; "Before and after, ours / bare" for the lot), not alone; the bare server we are
 * measured against names its statements too ("Why the bare server is the honest competitor").
 * Naming a query by making it from the text, rather than handing `pg` a config object, spares the
 * property-by-property copy `pg` makes of a config (`cloneQueryConfig`), 2 % of the busy time
 * ("Third pass", item 1).
 *
 * Where it reaches past public APIs. `query` is overridden on a subclass of `pg.Client` (a public
 * class, but its `query` is not meant to be replaced), and the name is set on a `pg.Query` after it
 * is made: `pg` reads `query.name` when it sends the query, which its types do not show.
 *
 * What removing it costs: a Parse and a plan per statement on the server (not measured alone).
 * The plain path is that removal; the storage contract runs on both.
 *
 * What it waits for. Effect 4's `@effect/sql-pg` prepares statements itself, per connection (its
 * `PreparedCache`, https://github.com/Effect-TS/effect/issues/8320); nothing found for Effect 3's.
 */
import * as Pg from "pg"

/**
 * Distinct statement texts named per connection. Our statements come from a fixed set of templates,
 * but a few vary with their input (multi-row inserts, optional filters); past this bound a new text
 * is sent unnamed, so no connection holds an unbounded number of plans.
 */
export const MAX_NAMED = 1000

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown

const query: Query = Pg.Client.prototype.query

/** Pass as the pool's `Client`: the rest of `pg.Client` is untouched. */
export class PreparingClient extends Pg.Client {
  /** The names given on this connection, by text: a name means one text to the server, for the session. */
  readonly statementNames = new Map<string, string>()

  nameOf(text: string): string | undefined {
    const known = this.statementNames.get(text)
    if (known !== undefined || this.statementNames.size >= MAX_NAMED) return known
    const name = `crm_${this.statementNames.size.toString(36)}`
    this.statementNames.set(text, name)
    return name
  }
}

PreparingClient.prototype.query = function (
  this: PreparingClient,
  config: unknown,
  values?: unknown,
  callback?: unknown
) {
  if (typeof config === "string" && Array.isArray(values) && values.length > 0) {
    const name = this.nameOf(config)
    if (name !== undefined) {
      if (typeof callback !== "function") return query.call(this, { name, text: config, values }, callback)
      // Made from the text and named afterwards: given a config object, `pg` copies it property by
      // property (`Object.defineProperties`), which cost more than the rest of sending it.
      const named: Pg.Query & { name?: string } = new Pg.Query(config, values, callback as never)
      named.name = name
      return query.call(this, named)
    }
  }
  return query.call(this, config, values, callback)
} as Pg.Client["query"]
