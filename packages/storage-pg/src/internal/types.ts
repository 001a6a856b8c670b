/**
 * How the store's connections read column values: `pg`'s own parsers (int8 and numeric as strings,
 * json parsed), except that a `timestamptz` is read straight into the ISO 8601 text the records
 * carry. `pg`'s default makes a `Date` of each one, which the rows then format back into that same
 * text: on a page of fifty contacts that was a tenth of the server's time and a hundred short-lived
 * objects. A registry of the store's own, so that `pg.types` stays as the embedding app left it.
 */
import * as Pg from "pg"

const TIMESTAMPTZ_OID = 1184

const SPACE = 32

/**
 * PostgreSQL's text form in UTC (`2026-11-22 09:30:00.123456+00`, the fraction optional) becomes
 * `2026-11-22T09:30:00.123Z`: the fraction cut to milliseconds as `Date` does, so the text is
 * exactly what `Date.toISOString()` gives. Any other form (a session in another time zone, a year
 * past 9999, `infinity`) goes through `pg`'s parser, as before. The session's zone is the server's
 * (UTC on PGlite and on most hosted servers) and is not set at connect: a startup `options`
 * parameter is refused by connection poolers such as PgBouncer, and the other form is still read
 * right, only slower.
 */
export const timestamptz = (text: string): string | Date | number => {
  const length = text.length
  if (length >= 22 && text.charCodeAt(10) === SPACE && text.endsWith("+00")) {
    const fraction = length > 22 ? text.slice(20, Math.min(length - 3, 23)) : ""
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${fraction.padEnd(3, "0")}Z`
  }
  return Pg.types.getTypeParser(TIMESTAMPTZ_OID, "text")(text)
}

/** For `pg`'s `types` option (and PGlite's parsers): the store's reading of each type. */
export const storeTypes: Pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMPTZ_OID && format !== "binary"
      ? timestamptz
      : Pg.types.getTypeParser(oid, format)) as Pg.CustomTypesConfig["getTypeParser"]
}
