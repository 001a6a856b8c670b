/**
 * Values going into SQL. Arrays and JSON travel as text with an explicit cast in the statement,
 * because `pg` and PGlite serialise JavaScript arrays and objects differently (pg turns a JS array
 * into a PostgreSQL array even where JSON was meant); text is read the same by both.
 */

export const json = (value: unknown): string => JSON.stringify(value)

/** A PostgreSQL array literal (`{"a","b"}`) for a `::text[]` cast; every element quoted, so commas and braces are safe. */
export const textArray = (values: ReadonlyArray<string>): string =>
  `{${values.map((value) => `"${value.replace(/[\\"]/g, "\\$&")}"`).join(",")}}`

/**
 * A case-insensitive substring pattern for `ILIKE ... ESCAPE '\'`: the client's `%`, `_` and `\` are
 * matched literally (`*` is not special to LIKE at all).
 */
export const containsPattern = (fragment: string): string => `%${fragment.replace(/[\\%_]/g, "\\$&")}%`
