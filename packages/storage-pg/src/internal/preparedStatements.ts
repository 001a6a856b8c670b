/**
 * Named (prepared) statements under `@effect/sql-pg`. Its connection sends every statement as an
 * unnamed one, so PostgreSQL parses and plans it again on every request. A `pg.Client` that names
 * each parameterised statement by its text makes the driver send Parse once per connection and
 * only Bind/Execute afterwards; `@effect/sql-pg` above it is unchanged (`PgClient.fromPool`).
 *
 * Statements without parameters keep the simple query protocol: migrations are multi-statement
 * scripts, and BEGIN/COMMIT gain nothing from a plan.
 */
import * as Pg from "pg"

/**
 * Distinct statement texts named per process. Our statements come from a fixed set of templates,
 * but a few vary with their input (multi-row inserts, optional filters); past this bound a new text
 * is sent unnamed, so no connection holds an unbounded number of plans.
 */
const MAX_NAMED = 1000

const names = new Map<string, string>()

const nameOf = (text: string): string | undefined => {
  const known = names.get(text)
  if (known !== undefined || names.size >= MAX_NAMED) return known
  const name = `crm_${names.size.toString(36)}`
  names.set(text, name)
  return name
}

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown

const query: Query = Pg.Client.prototype.query

/** Pass as the pool's `Client`: the rest of `pg.Client` is untouched. */
export class PreparingClient extends Pg.Client {}

PreparingClient.prototype.query = function (this: Pg.Client, config: unknown, values?: unknown, callback?: unknown) {
  if (typeof config === "string" && Array.isArray(values) && values.length > 0) {
    const name = nameOf(config)
    if (name !== undefined) {
      if (typeof callback !== "function") return query.call(this, { name, text: config, values }, callback)
      // Made from the text and named afterwards: given a config object, \`pg\` copies it property by
      // property (\`Object.defineProperties\`), which cost more than the rest of sending it.
      const named: Pg.Query & { name?: string } = new Pg.Query(config, values, callback as never)
      named.name = name
      return query.call(this, named)
    }
  }
  return query.call(this, config, values, callback)
} as Pg.Client["query"]
