/** Organisations, API keys, scopes, plans and the request budget. */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { z } from "zod"
import { AccessRepository, type ApiKeyRecord, type FoundKey } from "./Access/AccessRepository.js"
import {
  type AppConnect,
  type AppListQuery,
  type AppSummary,
  type CreatedKey,
  type KeyCreate,
  type KeyListQuery,
  type KeySummary,
  type Me,
  type OrganisationListQuery,
  type OrganisationSummary,
  SCOPES,
  type Scope
} from "./Access/AccessSchemas.js"
import * as ApiKey from "./Access/ApiKey.js"
import * as IpAllowList from "./Access/IpAllowList.js"
import { KeyId } from "./Access/KeyIds.js"
import { OAuthStore } from "./Access/OAuthStore.js"
import { type RateDecision, RateLimiter } from "./Access/RateLimiter.js"
import { DealRepository } from "./Deals/DealRepository.js"
import {
  ExpiredApiKey,
  type InUse,
  InvalidApiKey,
  invalidField,
  MissingBearerToken,
  MissingScope,
  NotFound,
  PlanRefused,
  RateLimited,
  type StorageError,
  type ValidationFailed
} from "./Errors.js"
import * as Ids from "./Ids.js"
import { operation } from "./internal/operation.js"
import { OrganisationId } from "./Organisation.js"
import { type Actor, operator, system } from "./People/Actor.js"
import * as Auditing from "./People/Auditing.js"
import { AuditLog } from "./People/AuditLog.js"
import type { AccountId } from "./People/PeopleIds.js"
import { RecordRepository } from "./Records/RecordRepository.js"
import * as SettingsRemovals from "./Settings/SettingsRemovals.js"
import type { Organisation, OrganisationCreate, SettingsInput } from "./Settings/SettingsSchemas.js"
import * as Settings from "./Settings.js"
import { Transaction } from "./Transaction.js"
import { type PageResult, toPage } from "./Wire.js"

export * from "./Access/AccessRepository.js"
export * from "./Access/AccessSchemas.js"
export * as ApiKey from "./Access/ApiKey.js"
export * as IpAllowList from "./Access/IpAllowList.js"
export * from "./Access/OAuthStore.js"
export * from "./Access/RateLimiter.js"

/** The contract's budget; an operator (or a benchmark) may set another with `layerWith`. */
export const RATE_LIMIT = 120
export const RATE_WINDOW_MS = 60_000

const MAX_REMEMBERED_KEYS = 10_000
/** A key's `last_used_at` is written at most this often by one process. */
const TOUCH_EVERY_MS = 60_000

/** Whose key a request carries; `access_version` as `FoundKey`'s. */
export type Principal = FoundKey

// One text for every refused key (unknown, revoked, mistyped, outside the allow-list), so that
// the answer tells an attacker nothing about which it was.
const invalidKey = () => new InvalidApiKey({ detail: "the API key is not valid" })

export class Access extends Context.Tag("@crm/core/Access")<
  Access,
  {
    /**
     * The key's principal, for a caller that admits its requests itself (an MCP stdio session's
     * start): `admit` with a look at the budget, nothing spent, so a change of the key's
     * organisation made on another process applies here as it does there.
     */
    readonly authenticate: (
      token: string | undefined,
      clientAddress: string
    ) => Effect.Effect<Principal, MissingBearerToken | InvalidApiKey | ExpiredApiKey | StorageError>
    /** Requests admitted per key in any rolling minute. */
    readonly rateLimit: number
    /** Spends (or, with `spend: false`, only reads) the key's budget. */
    readonly budget: (principal: Principal, spend: boolean) => Effect.Effect<RateDecision, StorageError>
    /**
     * After a request of the key that may have written has ended: its later reads, wherever the
     * store answers them from, see what it wrote (`RateLimiter.wrote`).
     */
    readonly wrote: (principal: Principal) => Effect.Effect<void, StorageError>
    /** Whether the store answers reads from a standby (`Reads`); false: `wrote` does nothing. */
    readonly standbyReads: boolean
    /**
     * Admission, one rule for every transport (REST, MCP over HTTP, MCP over stdio): the key, then
     * one unit of its budget, refused when it is spent. With `spend: false` only a look at the
     * budget (`GET /me` reports it, so it answers even when the budget is spent). What the key
     * may do with the request is `authorize`'s, once the transport knows what it was asked.
     */
    readonly admit: (
      token: string | undefined,
      clientAddress: string,
      spend: boolean
    ) => Effect.Effect<Admitted, MissingBearerToken | InvalidApiKey | ExpiredApiKey | RateLimited | StorageError>
    readonly me: (principal: Principal, remaining: number) => Me
    /**
     * The changes below are each recorded in the audit trail in their own unit of work, with `by`
     * as the actor: the operator (admin API) unless said otherwise.
     */
    readonly createOrganisation: (
      input: z.output<typeof OrganisationCreate>,
      by?: Actor
    ) => Effect.Effect<Organisation, StorageError>
    readonly getOrganisation: (id: OrganisationId) => Effect.Effect<Organisation, NotFound | StorageError>
    readonly organisations: Effect.Effect<ReadonlyArray<Organisation>, StorageError>
    /** A page of organisations, newest first, without their settings documents. */
    readonly listOrganisations: (
      query: OrganisationListQuery
    ) => Effect.Effect<PageResult<OrganisationSummary>, StorageError>
    /**
     * Refused with `InUse` while it would remove a stage live deals stand in or a record field
     * live records hold values of (see `SettingsRemovals`).
     */
    readonly replaceSettings: (
      id: OrganisationId,
      input: z.output<typeof SettingsInput>,
      by?: Actor
    ) => Effect.Effect<Organisation, NotFound | InUse | StorageError>
    /** A key made by a signed-in person (`by` a user) is theirs (`created_by`): a member manages only theirs. */
    readonly createKey: (
      organisationId: OrganisationId,
      input: z.output<typeof KeyCreate>,
      by?: Actor
    ) => Effect.Effect<CreatedKey, NotFound | ValidationFailed | StorageError>
    /** Returns once no process sharing the store accepts the key any more. */
    readonly revokeKey: (id: KeyId, by?: Actor) => Effect.Effect<void, NotFound | StorageError>
    /** A page of the organisation's keys, revoked ones too, newest first (connected apps are `listApps`'). */
    readonly listKeys: (
      organisationId: OrganisationId,
      query: KeyListQuery
    ) => Effect.Effect<PageResult<KeySummary>, NotFound | StorageError>
    /**
     * Connects an assistant (issue 37): the grant a person consented to becomes a key of theirs
     * (`created_by`) in the organisation, with the scopes consented to, named by the client. What
     * its tokens do is done, limited and recorded as that key's; revoking the key (`revokeKey`)
     * ends the grant, its tokens and its refresh tokens at once on every process.
     */
    readonly connectApp: (
      organisationId: OrganisationId,
      input: AppConnect,
      by: Actor
    ) => Effect.Effect<AppSummary, NotFound | StorageError>
    /**
     * Admission of an access token the authorization server vouched for (its audience, expiry and
     * revocation checked there): the grant's key, as `admit` admits a key, with the scopes both the
     * token and the key hold. A revoked or unknown grant is `invalid_api_key`.
     */
    readonly admitApp: (
      grantId: string,
      scopes: ReadonlyArray<string>,
      clientAddress: string,
      spend: boolean
    ) => Effect.Effect<Admitted, InvalidApiKey | RateLimited | StorageError>
    /**
     * The authorization server ended a grant itself (its client revoked its refresh token, or
     * presented a used one again): the app's key goes with it, so that the settings show it revoked.
     */
    readonly revokeApp: (grantId: string, by: Actor) => Effect.Effect<void, StorageError>
    /** The daily job: what the authorization server kept that has lapsed (codes, tokens, interactions). */
    readonly purgeAuthorizations: Effect.Effect<number, StorageError>
    /** A page of the organisation's connected apps, revoked ones too, newest first. */
    readonly listApps: (
      organisationId: OrganisationId,
      query: AppListQuery
    ) => Effect.Effect<PageResult<AppSummary>, NotFound | StorageError>
    /**
     * On an empty store: a default organisation and one key with every scope, so a newcomer has a
     * working API at once. Returns the key (shown once) or nothing when the store was not empty.
     */
    readonly bootstrap: Effect.Effect<Option.Option<{ organisation: Organisation; key: CreatedKey }>, StorageError>
  }
>() {}

/** Scope and plan checks: pure, so every transport applies the same rules. */
export const authorize = (
  principal: Principal,
  scope: Scope | null,
  writing: boolean
): Either.Either<void, MissingScope | PlanRefused> => {
  if (scope !== null && !principal.key.scopes.includes(scope)) return Either.left(new MissingScope({ scope }))
  if (writing && principal.organisation.settings.plan.read_only) {
    return Either.left(new PlanRefused({ detail: "READ_ONLY" }))
  }
  return Either.void
}

/** An admitted request: whose key it carries, and what is left of the key's budget after it. */
export interface Admitted {
  readonly principal: Principal
  readonly remaining: number
}

const iso = (ms: number) => new Date(ms).toISOString()

const toKeySummary = (key: ApiKeyRecord): KeySummary => ({
  id: key.id,
  name: key.name,
  scopes: [...key.scopes],
  expires_at: key.expires_at,
  allowed_ips: [...key.allowed_ips],
  owner_id: key.owner_id,
  created_by: key.created_by,
  created_at: key.created_at,
  last_used_at: key.last_used_at,
  revoked_at: key.revoked_at
})

const toAppSummary = (key: ApiKeyRecord): AppSummary => ({
  id: key.id,
  client_id: key.client_id ?? "",
  client_name: key.name,
  scopes: [...key.scopes],
  created_by: key.created_by,
  created_at: key.created_at,
  last_used_at: key.last_used_at,
  revoked_at: key.revoked_at
})

const keyTarget = (id: KeyId) => ({ kind: "key", id })

/** What changed in a settings replacement: the names of the parts that differ, not their contents. */
const changedParts = (before: object, after: object): ReadonlyArray<string> =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter(
      (part) =>
        JSON.stringify((before as Record<string, unknown>)[part]) !==
        JSON.stringify((after as Record<string, unknown>)[part])
    )
    .sort()

export const makeWith = (options: { readonly rateLimit: number }) =>
  Effect.gen(function* () {
    const { rateLimit } = options
    const ids = yield* Ids.Ids
    const repo = yield* AccessRepository
    const limiter = yield* RateLimiter
    const deals = yield* DealRepository
    const records = yield* RecordRepository
    const tx = yield* Transaction
    const oauth = yield* OAuthStore
    const record = Auditing.recorder(yield* AuditLog, ids)
    const digest = Option.getOrElse(yield* Effect.serviceOption(ApiKey.KeyDigest), () => ApiKey.webCrypto)
    // The ids of new pipelines and stages come from the same source as every other id.
    const complete = (name: string, input: z.output<typeof SettingsInput>) =>
      Effect.provideService(Settings.complete(name, input), Ids.Ids, ids)

    const createOrganisation = operation("Access.createOrganisation")(function* (
      input: z.output<typeof OrganisationCreate>,
      by: Actor = operator(null)
    ) {
      const settings = yield* complete(input.name, input.settings ?? Settings.SettingsInput.parse({}))
      const organisation: Organisation = {
        id: Ids.brand(OrganisationId, ids.next()),
        name: settings.name,
        settings,
        // A test-mode organisation starts on real time; its clock is frozen by the admin API.
        ...(input.test_mode === true ? { test_clock: { frozen_at: null } } : {})
      }
      const at = iso(yield* Clock.currentTimeMillis)
      yield* tx.run(
        Effect.zipRight(
          repo.insertOrganisation(organisation, at),
          record({
            organisationId: organisation.id,
            actor: by,
            action: "organisation.created",
            target: { kind: "organisation", id: organisation.id },
            summary: { name: organisation.name, test_mode: input.test_mode === true }
          })
        )
      )
      return organisation
    })

    /** A new key stored, and recorded in the audit trail in the same unit of work. */
    const insertKey = (key: ApiKeyRecord, by: Actor, action: string, summary: Record<string, unknown>) =>
      tx.run(
        Effect.zipRight(
          repo.insertKey(key),
          record({ organisationId: key.organisation_id, actor: by, action, target: keyTarget(key.id), summary })
        )
      )

    const createKey = operation("Access.createKey")(function* (
      organisationId: OrganisationId,
      input: z.output<typeof KeyCreate>,
      by: Actor = operator(null)
    ) {
      const organisation = yield* repo.getOrganisation(organisationId)
      if (Option.isNone(organisation)) return yield* new NotFound({ detail: "no such organisation" })
      const ownerId = input.owner_id ?? null
      if (ownerId !== null && !organisation.value.settings.users.some((user) => user.id === ownerId)) {
        return yield* invalidField("owner_id", "must be the id of one of the organisation's users")
      }
      const token = yield* ApiKey.generate
      const key: ApiKeyRecord = {
        id: Ids.brand(KeyId, ids.next()),
        organisation_id: organisationId,
        name: input.name ?? null,
        hash: yield* ApiKey.hash(token, digest),
        scopes: [...new Set(input.scopes)],
        expires_at: input.expires_at == null ? null : iso(Date.parse(input.expires_at)),
        allowed_ips: input.allowed_ips,
        revoked_at: null,
        created_at: iso(yield* Clock.currentTimeMillis),
        owner_id: ownerId,
        created_by: by.kind === "user" && by.id !== null ? (by.id as AccountId) : null,
        last_used_at: null,
        grant_id: null,
        client_id: null
      }
      yield* insertKey(key, by, "key.created", {
        name: key.name,
        scopes: [...key.scopes],
        expires_at: key.expires_at,
        allowed_ips: [...key.allowed_ips],
        owner_id: key.owner_id
      })
      return {
        id: key.id,
        name: key.name,
        key: token,
        scopes: [...key.scopes],
        expires_at: key.expires_at,
        allowed_ips: [...key.allowed_ips],
        owner_id: ownerId
      }
    })

    const getOrganisation = (id: OrganisationId) =>
      repo.getOrganisation(id).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.fail(new NotFound({ detail: "no such organisation" })),
            onSome: Effect.succeed
          })
        )
      )

    // The checksum check and the digest of a key are pure but not cheap (BigInt base62, an async
    // WebCrypto job), and a client sends the same key on every request: remember the tokens
    // recently seen to be well formed, with their hash. Bounded; a revoked key is refused by the
    // repository, never by this memo.
    const hashes = new Map<string, string>()
    const hashOf = (token: string): Effect.Effect<string | undefined> => {
      const known = hashes.get(token)
      if (known !== undefined) return Effect.succeed(known)
      if (!ApiKey.isWellFormed(token)) return Effect.succeed(undefined)
      return Effect.map(ApiKey.hash(token, digest), (hash) => {
        if (hashes.size >= MAX_REMEMBERED_KEYS) hashes.clear()
        hashes.set(token, hash)
        return hash
      })
    }

    // When this process last wrote each key's `last_used_at`: a client sends its key on every
    // request, and one write a minute says "last used" closely enough. Bounded like `hashes`.
    const touched = new Map<KeyId, number>()
    /** Whether the key's use at `now` is to be written: on the hot path, so the map is asked first. */
    const dueTouch = (key: ApiKeyRecord, now: number): boolean => {
      const last =
        touched.get(key.id) ?? (key.last_used_at === null ? Number.NEGATIVE_INFINITY : Date.parse(key.last_used_at))
      if (now - last < TOUCH_EVERY_MS) return false
      if (touched.size >= MAX_REMEMBERED_KEYS) touched.clear()
      touched.set(key.id, now)
      return true
    }
    // Off the request's path: the request neither waits for the write nor fails with it. One write
    // at a time per process, carrying every use noted while the one before it ran: a burst of keys
    // seen for the first time (a restart, 4,000 customers) is a few statements, not one per key.
    const waiting = new Map<KeyId, string>()
    let writing = false
    const writeWaiting: Effect.Effect<void> = Effect.suspend(() => {
      if (waiting.size === 0) {
        writing = false
        return Effect.void
      }
      const uses = [...waiting].map(([id, at]) => ({ id, at }))
      waiting.clear()
      return repo.touchKeys(uses).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning("keys' last use was not recorded", { keys: uses.length, error: error.message })
        ),
        Effect.zipRight(writeWaiting)
      )
    })
    const touch = (key: ApiKeyRecord, now: number): Effect.Effect<void> =>
      Effect.suspend(() => {
        waiting.set(key.id, iso(now))
        if (writing) return Effect.void
        writing = true
        return Effect.asVoid(Effect.forkDaemon(writeWaiting))
      })

    const bearerHash = (token: string | undefined): Effect.Effect<string, MissingBearerToken | InvalidApiKey> =>
      token === undefined
        ? Effect.fail(new MissingBearerToken({ detail: "send Authorization: Bearer <API key>" }))
        : Effect.flatMap(hashOf(token), (hash) =>
            hash === undefined ? Effect.fail(invalidKey()) : Effect.succeed(hash)
          )
    // Admission with a look at the budget and nothing spent: the look is what reads the
    // organisation's access version, so a key revoked on another process is refused here too,
    // not served from this process's cache until its entry ages out.
    const authenticate: Context.Tag.Service<typeof Access>["authenticate"] = operation("Access.authenticate")(
      (token: string | undefined, clientAddress: string) =>
        Effect.flatMap(bearerHash(token), (hash) =>
          admitting((atLeast) => principalOf(hash, clientAddress, atLeast), false).pipe(
            Effect.map((admitted) => admitted.principal),
            // Nothing spent, so nothing refused for the budget.
            Effect.catchTag("RateLimited", (refused) => Effect.die(refused))
          )
        )
    )
    /**
     * The live key stored under `hash`, its use noted; what a bearer key and a connected app's token
     * share. Steps of `flatMap`, not a generator: it runs on every request.
     */
    const principalOf = (
      hash: string,
      clientAddress: string,
      atLeast: number | undefined
    ): Effect.Effect<Principal, InvalidApiKey | ExpiredApiKey | StorageError> =>
      Effect.flatMap(
        repo.findKeyByHash(hash, atLeast),
        (found): Effect.Effect<Principal, InvalidApiKey | ExpiredApiKey> => {
          if (Option.isNone(found) || found.value.key.revoked_at !== null) return Effect.fail(invalidKey())
          const { key } = found.value
          if (key.allowed_ips.length > 0 && !IpAllowList.isAllowed(clientAddress, key.allowed_ips)) {
            return Effect.fail(invalidKey())
          }
          return Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<Principal, ExpiredApiKey> => {
            if (key.expires_at !== null && Date.parse(key.expires_at) <= now) {
              return Effect.fail(new ExpiredApiKey({ detail: `the API key expired at ${key.expires_at}` }))
            }
            return dueTouch(key, now) ? Effect.as(touch(key, now), found.value) : Effect.succeed(found.value)
          })
        }
      )
    const budget: Context.Tag.Service<typeof Access>["budget"] = (principal, spend) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        limiter.take(principal.key.id, {
          organisationId: principal.key.organisation_id,
          now,
          limit: rateLimit,
          windowMs: RATE_WINDOW_MS,
          spend
        })
      )

    const revokeKey = operation("Access.revokeKey")(function* (id: KeyId, by: Actor = operator(null)) {
      const at = iso(yield* Clock.currentTimeMillis)
      yield* tx.run(
        Effect.gen(function* () {
          const key = yield* repo.key(id)
          if (Option.isNone(key) || !(yield* repo.revokeKey(id, at))) {
            return yield* new NotFound({ detail: "no such key" })
          }
          // A connected app's grant goes with its key: its codes, tokens and refresh tokens too.
          if (key.value.grant_id !== null) yield* oauth.revokeGrant(key.value.grant_id)
          // Revoking a revoked key changes nothing, and so records nothing.
          if (key.value.revoked_at === null) {
            yield* record({
              organisationId: key.value.organisation_id,
              actor: by,
              action: key.value.grant_id === null ? "key.revoked" : "app.revoked",
              target: keyTarget(id),
              summary:
                key.value.grant_id === null
                  ? { name: key.value.name, scopes: [...key.value.scopes] }
                  : { client_id: key.value.client_id, client_name: key.value.name, scopes: [...key.value.scopes] }
            })
          }
        })
      )
    })

    /**
     * The principal `resolve` finds, then one unit of its budget, refused when it is spent. The
     * budget's statement reads the organisation's access version: a principal found in a cache
     * before a change of the organisation's keys or settings committed is found again, at least
     * that new, and it is what the request is served as (or refused as: a revoked key). So a change
     * applies to the next request on every process, whatever a process's cache holds.
     */
    const admitting = <E>(
      resolve: (atLeast: number | undefined) => Effect.Effect<Principal, E>,
      spend: boolean
    ): Effect.Effect<Admitted, E | RateLimited | StorageError> =>
      Effect.flatMap(resolve(undefined), (found) =>
        Effect.flatMap(budget(found, spend), (decision) => {
          const current = decision.accessVersion
          return current !== undefined && found.access_version !== undefined && found.access_version < current
            ? Effect.flatMap(resolve(current), (principal) => decided(principal, decision, spend))
            : decided(found, decision, spend)
        })
      )
    const decided = (
      principal: Principal,
      decision: RateDecision,
      spend: boolean
    ): Effect.Effect<Admitted, RateLimited> =>
      spend && !decision.admitted
        ? Effect.fail(
            new RateLimited({
              detail: `more than ${rateLimit} requests in a minute`,
              retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)),
              limit: rateLimit
            })
          )
        : Effect.succeed({ principal, remaining: decision.remaining })

    const connectApp = operation("Access.connectApp")(function* (
      organisationId: OrganisationId,
      input: AppConnect,
      by: Actor
    ) {
      const organisation = yield* getOrganisation(organisationId)
      // The app acts as its person: as the organisation's user of the same address, where there is
      // one, so that "mine" and the tasks it creates are theirs.
      const email = by.label?.toLowerCase()
      const owner = organisation.settings.users.find((user) => user.email.toLowerCase() === email)
      const key: ApiKeyRecord = {
        id: Ids.brand(KeyId, ids.next()),
        organisation_id: organisationId,
        name: input.clientName,
        hash: yield* ApiKey.appHash(input.grantId, digest),
        scopes: [...new Set(input.scopes)],
        expires_at: null,
        allowed_ips: [],
        revoked_at: null,
        created_at: iso(yield* Clock.currentTimeMillis),
        owner_id: owner?.id ?? null,
        created_by: by.kind === "user" && by.id !== null ? (by.id as AccountId) : null,
        last_used_at: null,
        grant_id: input.grantId,
        client_id: input.clientId
      }
      yield* insertKey(key, by, "app.connected", {
        client_id: input.clientId,
        client_name: input.clientName,
        scopes: [...key.scopes]
      })
      return toAppSummary(key)
    })

    return Access.of({
      rateLimit,
      authenticate,
      budget,
      wrote: (principal) => limiter.wrote(principal.key.id, principal.key.organisation_id),
      standbyReads: limiter.standby,
      admit: (token, clientAddress, spend) =>
        Effect.flatMap(bearerHash(token), (hash) =>
          admitting((atLeast) => principalOf(hash, clientAddress, atLeast), spend)
        ),
      connectApp,
      admitApp: (grantId, scopes, clientAddress, spend) =>
        Effect.flatMap(ApiKey.appHash(grantId, digest), (hash) =>
          admitting(
            (atLeast) =>
              principalOf(hash, clientAddress, atLeast).pipe(
                // A connected app's key carries no expiry: only a key made as a key expires.
                Effect.catchTag("ExpiredApiKey", () => Effect.fail(invalidKey())),
                Effect.map((found) => {
                  const held = found.key.scopes.filter((scope) => scopes.includes(scope))
                  return held.length === found.key.scopes.length
                    ? found
                    : { ...found, key: { ...found.key, scopes: held } }
                })
              ),
            spend
          )
        ),
      revokeApp: (grantId, by) =>
        Effect.flatMap(
          Effect.flatMap(ApiKey.appHash(grantId, digest), (hash) => repo.findKeyByHash(hash)),
          // A live app's key is revoked with its grant's records; else the records go alone.
          (found) =>
            Option.isSome(found) && found.value.key.revoked_at === null
              ? Effect.catchTag(revokeKey(found.value.key.id, by), "NotFound", () => oauth.revokeGrant(grantId))
              : oauth.revokeGrant(grantId)
        ),
      purgeAuthorizations: Effect.flatMap(Clock.currentTimeMillis, (now) => oauth.purge(iso(now))),
      listApps: operation("Access.listApps")(function* (organisationId, query) {
        yield* getOrganisation(organisationId)
        return toPage((yield* repo.keyPage(organisationId, query, "apps")).map(toAppSummary), query)
      }),
      me: (principal, remaining) => ({
        key: {
          id: principal.key.id,
          name: principal.key.name,
          scopes: [...principal.key.scopes],
          expires_at: principal.key.expires_at,
          test_mode: principal.organisation.test_clock !== undefined
        },
        organisation: {
          id: principal.organisation.id,
          name: principal.organisation.name,
          timezone: principal.organisation.settings.timezone
        },
        rate_limit: { limit: rateLimit, remaining }
      }),
      createOrganisation,
      organisations: repo.listOrganisations,
      listOrganisations: (query) => Effect.map(repo.organisationPage(query), (rows) => toPage(rows, query)),
      getOrganisation,
      replaceSettings: operation("Access.replaceSettings")(function* (id, input, by = operator(null)) {
        // Counted and written in one unit holding the organisation: a deal entering a stage, or a
        // record taking a field's value, holds it too (`holdOrganisation`), so it either commits
        // before the count sees it or reads the settings written here.
        const updated = yield* tx.run(
          Effect.gen(function* () {
            const current = yield* repo.holdOrganisation(id, "replace")
            if (Option.isNone(current)) return yield* new NotFound({ detail: "no such organisation" })
            const settings = yield* complete(current.value.name, input)
            const removed = SettingsRemovals.between(current.value.settings, settings)
            const stages = removed.stages.map((stage) => stage.stage_id)
            yield* SettingsRemovals.check(
              removed,
              stages.length === 0 ? [] : yield* deals.countByStage(id, stages),
              removed.fields.length === 0 ? [] : yield* records.countHolding(id, removed.fields)
            )
            const written = yield* repo.updateSettings(id, settings)
            yield* record({
              organisationId: id,
              actor: by,
              action: "settings.replaced",
              target: { kind: "organisation", id },
              summary: { name: settings.name, changed: changedParts(current.value.settings, settings) }
            })
            return Option.getOrElse(written, () => ({ ...current.value, name: settings.name, settings }))
          })
        )
        return updated
      }),
      createKey,
      revokeKey,
      listKeys: operation("Access.listKeys")(function* (organisationId, query) {
        yield* getOrganisation(organisationId)
        return toPage((yield* repo.keyPage(organisationId, query, "keys")).map(toKeySummary), query)
      }),
      bootstrap: Effect.gen(function* () {
        if ((yield* repo.countOrganisations) > 0) return Option.none()
        const organisation = yield* createOrganisation({ name: "My organisation" }, system)
        const key = yield* createKey(
          organisation.id,
          { name: "first key", scopes: [...SCOPES], allowed_ips: [] },
          system
        ).pipe(Effect.catchTags({ NotFound: Effect.die, ValidationFailed: Effect.die }))
        return Option.some({ organisation, key })
      })
    })
  })

export const make = makeWith({ rateLimit: RATE_LIMIT })
export const layer = Layer.effect(Access, make)
export const layerWith = (options: { readonly rateLimit: number }) => Layer.effect(Access, makeWith(options))
