/** What the webhook storage contract's cases build on: API keys that own hooks, hooks, claims, events. */
import { Access, type Errors, Events, type Organisation, Webhooks } from "@crm/core"
import * as Effect from "effect/Effect"
import { at, newId, seed, uuid } from "../Fixtures.js"

export const newKey = (
  organisationId: Organisation.OrganisationId
): Effect.Effect<Webhooks.HookOwner, Errors.StorageError, Access.AccessRepository> =>
  Effect.gen(function* () {
    const key: Access.ApiKeyRecord = {
      id: newId(Access.KeyId),
      organisation_id: organisationId,
      name: null,
      hash: uuid(),
      scopes: ["read", "write"],
      expires_at: null,
      allowed_ips: [],
      revoked_at: null,
      created_at: at(0),
      owner_id: null,
      created_by: null,
      last_used_at: null,
      grant_id: null,
      client_id: null
    }
    yield* (yield* Access.AccessRepository).insertKey(key)
    return { organisationId, keyId: key.id }
  })

export const hookFor = (
  owner: Webhooks.HookOwner,
  overrides: Partial<Webhooks.HookRecord> = {}
): Webhooks.HookRecord => ({
  id: newId(Webhooks.HookId),
  organisation_id: owner.organisationId,
  key_id: owner.keyId,
  target_url: "https://8.8.8.8/hook",
  events: ["contact.created"],
  active: true,
  disabled_reason: null,
  secret: `whsec_${uuid()}`,
  previous_secret: null,
  previous_secret_expires_at: null,
  failing_since: null,
  unanswered_attempts: 0,
  paused_until: null,
  created_at: at(1),
  updated_at: at(1),
  ...overrides
})

/** An organisation with one key that owns one active hook, and the ports the cases use on it. */
export const withHook: Effect.Effect<
  {
    readonly a: Organisation.Organisation
    readonly repo: Webhooks.WebhookRepository["Type"]
    readonly log: Events.EventLog["Type"]
    readonly owner: Webhooks.HookOwner
    readonly hook: Webhooks.HookRecord
  },
  Errors.StorageError,
  Access.AccessRepository | Webhooks.WebhookRepository | Events.EventLog
> = Effect.gen(function* () {
  const { a } = yield* seed
  const repo = yield* Webhooks.WebhookRepository
  const log = yield* Events.EventLog
  const owner = yield* newKey(a.id)
  const hook = hookFor(owner)
  yield* repo.insert(hook, 20)
  return { a, repo, log, owner, hook }
})

/** Claims due hooks as of `ms` after the origin, leased for `leaseMs`. */
export const claimAt = (ms: number, token = uuid(), leaseMs = 60_000, hooks = 10) =>
  Effect.flatMap(Webhooks.WebhookRepository, (repo) =>
    repo.claim({ now: at(ms), leaseUntil: at(ms + leaseMs), token, hooks, perHook: 10 })
  )

export const created = (id: string) => ({ event: "contact.created" as const, data: { id, first_name: "Ann" } })
