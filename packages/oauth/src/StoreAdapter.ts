/**
 * oidc-provider's storage, over the kernel's `OAuthStore` port: every process on the database sees
 * the same clients, interactions, grants, codes and tokens, so a code issued by one process is
 * redeemed at another and a token revoked at one is refused by all.
 *
 * Records that a bearer presents (codes, tokens, the interaction cookie) are stored under the
 * SHA-256 of their id, with the id taken out of the stored payload and put back when found: a
 * read of the table gives no usable token. Clients and grants are named by ids that are no secret.
 * The provider's own login session is stored as it is, because it is found by its `uid` and saved
 * again under its id; it admits nothing on its own, since the consent screen asks for the CRM's
 * session every time.
 */
import { createHash } from "node:crypto"
import type { Access, Errors } from "@crm/core"
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Adapter, AdapterPayload } from "oidc-provider"

type Store = Access.OAuthStore["Type"]
type Run = <A>(effect: Effect.Effect<A, Errors.StorageError>) => Promise<A>

const PLAIN = new Set(["Client", "Grant", "Session"])

const hashed = (id: string) => createHash("sha256").update(id).digest("base64url")
const iso = (ms: number) => new Date(ms).toISOString()

/**
 * `endGrant`: what else goes when the provider ends a grant itself (a client revoking its refresh
 * token, or presenting a used one again): the connected app's key.
 */
export const adapterFactory =
  (store: Store, run: Run, endGrant: (grantId: string) => Effect.Effect<void, Errors.StorageError>) =>
  (model: string): Adapter => {
    const secret = !PLAIN.has(model)
    const keyOf = (id: string) => (secret ? hashed(id) : id)
    const payloadOf = (found: Option.Option<Access.OAuthRecord>, id: string): AdapterPayload | undefined => {
      if (Option.isNone(found)) return undefined
      const record = found.value
      return {
        ...(record.payload as AdapterPayload),
        ...(secret ? { jti: id } : {}),
        ...(record.consumed_at === null ? {} : { consumed: Math.floor(Date.parse(record.consumed_at) / 1000) })
      }
    }
    const stored = (payload: AdapterPayload, id: string): Record<string, unknown> => {
      if (!secret || payload.jti !== id) return { ...payload }
      const { jti: _id, ...rest } = payload
      return rest
    }
    const now = () => iso(Date.now())
    return {
      upsert: (id, payload, expiresIn) =>
        run(
          store.upsert({
            model,
            id: keyOf(id),
            payload: stored(payload, id),
            grant_id: typeof payload.grantId === "string" ? payload.grantId : null,
            uid: typeof payload.uid === "string" ? payload.uid : null,
            user_code: typeof payload.userCode === "string" ? payload.userCode : null,
            expires_at: expiresIn === undefined ? null : iso(Date.now() + expiresIn * 1000),
            consumed_at: null
          })
        ),
      find: (id) => run(store.find(model, keyOf(id), now())).then((found) => payloadOf(found, id)),
      // Only the provider's sessions are found by uid, and they are stored as they are.
      findByUid: (uid) =>
        run(store.findByUid(model, uid, now())).then((found) =>
          Option.isNone(found) ? undefined : payloadOf(found, found.value.id)
        ),
      // The device flow, the only user of user codes, is off.
      findByUserCode: (userCode) =>
        run(store.findByUserCode(model, userCode, now())).then((found) =>
          Option.isNone(found) ? undefined : payloadOf(found, found.value.id)
        ),
      consume: (id) => run(store.consume(model, keyOf(id), now())),
      destroy: (id) => run(store.destroy(model, keyOf(id))),
      revokeByGrantId: (grantId) => run(endGrant(grantId))
    }
  }
