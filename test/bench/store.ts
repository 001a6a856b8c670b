/**
 * The store `bench:fuzz` and `bench:hostile` serve from: the PostgreSQL server at DATABASE_URL
 * (reading from the standby at CRM_READ_DATABASE_URL, when given, as `crm serve` would), or else
 * an embedded PGlite in memory.
 */
import * as StoragePg from "@crm/storage-pg"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

export const url = process.env.DATABASE_URL

export const benchStore = () =>
  url === undefined
    ? StoragePg.layerPglite({})
    : StoragePg.layerFor({
        url: Option.some(Redacted.make(url)),
        dataDir: "",
        readUrl: Option.map(Option.fromNullable(process.env.CRM_READ_DATABASE_URL), Redacted.make)
      })
