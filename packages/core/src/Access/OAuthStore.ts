/**
 * What the MCP endpoint's authorization server keeps (issue 37): its clients, sign-in
 * interactions, grants, authorization codes and tokens, as one store of JSON records by kind
 * (`model`) and id, shared by every process on the database. The server (`@crm/oauth`) owns the
 * records' shape; the store keeps them, finds them, and lets them lapse.
 *
 * Ids that are themselves secrets (codes, tokens) reach the store only as their hash: the
 * server hashes before it asks.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"

export interface OAuthRecord {
  /** The kind of record: `Client`, `Grant`, `Interaction`, `AuthorizationCode`, `AccessToken`, ... */
  readonly model: string
  readonly id: string
  readonly payload: Readonly<Record<string, unknown>>
  /** The grant a code or token belongs to: what `revokeGrant` removes together. */
  readonly grant_id: string | null
  /** A sign-in interaction's or session's uid, looked up by it. */
  readonly uid: string | null
  readonly user_code: string | null
  /** When the record lapses; null for never (a registered client). */
  readonly expires_at: string | null
  /** When a one-time record (a code, a rotated refresh token) was used; null while unused. */
  readonly consumed_at: string | null
}

export class OAuthStore extends Context.Tag("@crm/core/OAuthStore")<
  OAuthStore,
  {
    /** Writes the record, replacing one of the same model and id (its `consumed_at` too). */
    readonly upsert: (record: OAuthRecord) => Effect.Effect<void, StorageError>
    /** The record, unless it lapsed at or before `now`. */
    readonly find: (model: string, id: string, now: string) => Effect.Effect<Option.Option<OAuthRecord>, StorageError>
    readonly findByUid: (
      model: string,
      uid: string,
      now: string
    ) => Effect.Effect<Option.Option<OAuthRecord>, StorageError>
    readonly findByUserCode: (
      model: string,
      userCode: string,
      now: string
    ) => Effect.Effect<Option.Option<OAuthRecord>, StorageError>
    /** Marks a one-time record used at `at` (the first use is kept). */
    readonly consume: (model: string, id: string, at: string) => Effect.Effect<void, StorageError>
    readonly destroy: (model: string, id: string) => Effect.Effect<void, StorageError>
    /** Removes every record of the grant (its codes and tokens) and the grant itself (model `Grant`, id `grantId`). */
    readonly revokeGrant: (grantId: string) => Effect.Effect<void, StorageError>
    /**
     * The record's payload, written first if there is none: the first process to ask wins and
     * every process reads the same (the server's signing and cookie keys).
     */
    readonly claim: (
      model: string,
      id: string,
      payload: Readonly<Record<string, unknown>>
    ) => Effect.Effect<Readonly<Record<string, unknown>>, StorageError>
    /** Removes what lapsed before `before`; returns how many. */
    readonly purge: (before: string) => Effect.Effect<number, StorageError>
  }
>() {}

/** A record of nothing but its payload: what `claim` writes when there is none. */
export const bareRecord = (model: string, id: string, payload: Readonly<Record<string, unknown>>): OAuthRecord => ({
  model,
  id,
  payload,
  grant_id: null,
  uid: null,
  user_code: null,
  expires_at: null,
  consumed_at: null
})
