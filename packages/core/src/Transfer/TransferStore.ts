/**
 * The port that reads an organisation out of the store whole and writes it back. The lines are the
 * store's own rows (a store knows what it holds; the kernel's records do not carry everything a
 * store keeps, such as the ledger's levels or a hook's lease), so a file imports into a store of the
 * same `kind` at the same `schema`; PGlite and a PostgreSQL server are one kind.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { ImportFailed, NotFound, OrganisationExists, StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"

export interface ExportOptions {
  /** Hooks' signing secrets as they are; left out, each is written as null. */
  readonly includeSecrets: boolean
}

/**
 * Hands on lines (JSON object texts, no newline) and returns once the reader can take more: the
 * store never holds more than a page of them.
 */
export type Emit = (lines: ReadonlyArray<string>) => Effect.Effect<void>

/** One line of an import after the header, read as a JSON object with a string `type`. */
export interface ItemLine {
  /** 1-based line number in the file. */
  readonly line: number
  readonly type: string
  readonly value: Readonly<Record<string, unknown>>
  /** The line as sent: a store may hand it to its database as it is, so exact numbers stay exact. */
  readonly text: string
}

export class TransferStore extends Context.Tag("@crm/core/Transfer/TransferStore")<
  TransferStore,
  {
    /** The store's kind (`postgres`, `memory`), written in the header. */
    readonly kind: string
    /** The version of the store's rows (PostgreSQL: the last migration), written in the header. */
    readonly schema: number
    /**
     * Every line the organisation owns, in an order `importItems` can replay (the organisation
     * first, then what refers to it), read from one consistent view of the store. `NotFound`
     * before the first line when there is no such organisation.
     */
    readonly exportItems: (
      organisationId: OrganisationId,
      options: ExportOptions,
      emit: Emit
    ) => Effect.Effect<void, NotFound | StorageError>
    /**
     * Writes the lines into the store, inside the caller's unit of work, as the organisation
     * `organisationId` (the organisation line's id must be it). A line the store cannot take is
     * `ImportFailed` naming it; the organisation taken already is `OrganisationExists`.
     */
    readonly importItems: <E>(
      organisationId: OrganisationId,
      items: Stream.Stream<ItemLine, E>
    ) => Effect.Effect<void, ImportFailed | OrganisationExists | StorageError | E>
  }
>() {}
