import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"
import type { UserId } from "../Organisation/UserIds.js"
import type { OrganisationId } from "../Organisation.js"
import type { AccountId } from "../People/PeopleIds.js"
import type { Organisation, Settings } from "../Settings/SettingsSchemas.js"
import type { Page } from "../Wire.js"
import type { OrganisationSummary, Scope } from "./AccessSchemas.js"
import type { KeyId } from "./KeyIds.js"

export interface ApiKeyRecord {
  readonly id: KeyId
  readonly organisation_id: OrganisationId
  readonly name: string | null
  /** Lower-case hex SHA-256 of the key: the key itself is never stored. */
  readonly hash: string
  readonly scopes: ReadonlyArray<Scope>
  readonly expires_at: string | null
  readonly allowed_ips: ReadonlyArray<string>
  readonly revoked_at: string | null
  readonly created_at: string
  /** The person (an id from the organisation's settings `users`) the key acts for; null for nobody in particular. */
  readonly owner_id: UserId | null
  /** The person who made it in the settings screen (whom a member's rights over it follow); null for the operator. */
  readonly created_by: AccountId | null
  /** When a request last came with it: written at most once a minute per key and process. */
  readonly last_used_at: string | null
  /**
   * A connected app's key (issue 37): the OAuth grant it stands for, found by `ApiKey.appHash` of
   * it, never by a bearer token; null for a key made as a key. Its `name` is the client's name.
   */
  readonly grant_id: string | null
  /** The OAuth client a connected app's key was granted to; null for a key made as a key. */
  readonly client_id: string | null
}

/**
 * A key with its organisation, as authentication reads them. An adapter that answers from a cache
 * in process says which state of the organisation's access (its keys and settings) the answer was
 * read at: `access_version`, which every change of them raises in the changing transaction. The
 * first statement of a request (the rate budget's take, `RateLimiter`) reads the current one, so a
 * stale answer is caught before the request is served, on every process, with no statement of its own.
 * Absent where answers are always read from the store.
 */
export interface FoundKey {
  readonly key: ApiKeyRecord
  readonly organisation: Organisation
  readonly access_version?: number
}

/** Which of an organisation's keys a page lists: the keys made as keys, or the connected apps' keys. */
export type KeyKind = "keys" | "apps"

export class AccessRepository extends Context.Tag("@crm/core/AccessRepository")<
  AccessRepository,
  {
    readonly insertOrganisation: (organisation: Organisation, at: string) => Effect.Effect<void, StorageError>
    readonly getOrganisation: (id: OrganisationId) => Effect.Effect<Option.Option<Organisation>, StorageError>
    /**
     * Inside a unit of work: the organisation as committed, held until the unit ends, across every
     * process. `share` is taken by a write that acts on the settings (a deal entering a stage, a
     * record holding a field's value); `replace` by a settings replacement, which so waits for
     * those in flight and makes those that come later wait and then read what it wrote.
     */
    readonly holdOrganisation: (
      id: OrganisationId,
      mode: "share" | "replace"
    ) => Effect.Effect<Option.Option<Organisation>, StorageError>
    /** Raises the organisation's access version (see `FoundKey`): every process applies it to its next request. */
    readonly updateSettings: (
      id: OrganisationId,
      settings: Settings
    ) => Effect.Effect<Option.Option<Organisation>, StorageError>
    /**
     * Moves a test-mode organisation's clock (`frozenAt` null: back to real time), if it still stands
     * at `expected` (compare and set, so two concurrent changes cannot lose one). False when it has
     * moved meanwhile, or the organisation is missing or not in test mode. Like `updateSettings`,
     * it raises the organisation's access version.
     */
    readonly setTestClock: (
      id: OrganisationId,
      expected: string | null,
      frozenAt: string | null
    ) => Effect.Effect<boolean, StorageError>
    readonly countOrganisations: Effect.Effect<number, StorageError>
    /** Every organisation, oldest first: what the daily jobs walk (each in its own time zone). */
    readonly listOrganisations: Effect.Effect<ReadonlyArray<Organisation>, StorageError>
    /** What the admin API lists: newest first, ties by id descending; at most `limit + 1`. */
    readonly organisationPage: (page: Page) => Effect.Effect<ReadonlyArray<OrganisationSummary>, StorageError>
    readonly insertKey: (key: ApiKeyRecord) => Effect.Effect<void, StorageError>
    /**
     * An organisation's keys of one kind, revoked ones too: newest first, ties by id descending;
     * at most `limit + 1`.
     */
    readonly keyPage: (
      organisationId: OrganisationId,
      page: Page,
      kind: KeyKind
    ) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, StorageError>
    /**
     * The key and its organisation in one read: authentication costs one round trip, or none when
     * the adapter answers from a cache in process. A cached answer carries the access version it
     * was read at, and is never older than `atLeast` (the version a request's budget statement
     * read): a new key is found at once, and a change made through this port by any process is
     * seen by the next request that checks the version.
     */
    readonly findKeyByHash: (hash: string, atLeast?: number) => Effect.Effect<Option.Option<FoundKey>, StorageError>
    /**
     * Notes that each key was used at its `at` (a later time only; an earlier one is ignored), in
     * one write: a burst of new keys is one statement, not one each.
     */
    readonly touchKeys: (
      uses: ReadonlyArray<{ readonly id: KeyId; readonly at: string }>
    ) => Effect.Effect<void, StorageError>
    /**
     * The key by id, revoked or not, whichever organisation holds it: the admin API names keys by id
     * alone, and a revocation is recorded in the key's organisation's audit trail (a caller acting
     * in one organisation checks `organisation_id`).
     */
    readonly key: (id: KeyId) => Effect.Effect<Option.Option<ApiKeyRecord>, StorageError>
    /** Raises the key's organisation's access version: once committed, no process accepts the key. */
    readonly revokeKey: (id: KeyId, at: string) => Effect.Effect<boolean, StorageError>
    /**
     * Revokes the live connected apps' keys a person holds in an organisation (they left it) and
     * returns them as they were before. Like `revokeKey`, it raises the organisation's access version.
     */
    readonly revokeAppsOf: (
      organisationId: OrganisationId,
      accountId: AccountId,
      at: string
    ) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, StorageError>
  }
>() {}
