import { Access, Ids } from "@crm/core"
/**
 * The Idempotency service against a scripted store: what happens when another request's record
 * was stored after this request's claim looked (possible on PostgreSQL, where the claim reads
 * before its lock is taken), which no real store can be made to do on cue.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { describe, expect, it } from "vitest"
import * as Idempotency from "../src/Idempotency.js"
import { Transaction } from "../src/Transaction.js"

const theirs: Idempotency.IdempotencyRecord = {
  fingerprint: "f",
  payload: "theirs",
  created_at: "2026-11-25T00:00:00.000Z"
}

/** A store whose first `overtaken` saves find a record stored by someone else since the claim. */
const scripted = (overtaken: number) => {
  const seen = { claims: 0, saves: 0, rolledBack: 0, stored: Option.none<Idempotency.IdempotencyRecord>() }
  const store = Idempotency.IdempotencyStore.of({
    claim: () =>
      Effect.sync(() => {
        seen.claims++
        return seen.stored
      }),
    save: (_scope, record) =>
      Effect.sync(() => {
        seen.saves++
        if (seen.saves <= overtaken) return false
        seen.stored = Option.some(record)
        return true
      }),
    purgeBefore: () => Effect.succeed(0)
  })
  const tx = Transaction.of({
    run: (self) => Effect.tapErrorCause(self, () => Effect.sync(() => seen.rolledBack++)),
    lockOrganisation: () => Effect.void,
    lockKey: () => Effect.void
  })
  const layer = Idempotency.layer.pipe(
    Layer.provide(Layer.succeed(Idempotency.IdempotencyStore, store)),
    Layer.provide(Layer.succeed(Transaction, tx))
  )
  return { seen, layer, arrive: () => (seen.stored = Option.some(theirs)) }
}

const mine: Idempotency.Run<string> = { value: "mine", refused: false, payload: "mine" }

const execute = (run: Effect.Effect<Idempotency.Run<string>>) =>
  Effect.flatMap(Idempotency.Idempotency, (service) =>
    service.execute({ keyId: Ids.brand(Access.KeyId, "key"), idempotencyKey: "k" }, "f", run)
  )

describe("Idempotency, overtaken between claim and save", () => {
  it("rolls its unit back and replays the record that got in first", async () => {
    const { seen, layer, arrive } = scripted(1)
    let runs = 0
    const run = Effect.sync(() => {
      runs++
      // The other request commits while this one runs: its claim has already looked.
      arrive()
      return mine
    })
    const outcome = await Effect.runPromise(Effect.provide(execute(run), layer))
    expect(outcome).toEqual({ replayed: true, payload: theirs.payload })
    expect(runs).toBe(1)
    expect(seen.rolledBack).toBe(1)
    expect(seen.claims).toBe(2)
  })

  it("answers in progress, not a loop, from a store that is overtaken at every save", async () => {
    const { seen, layer } = scripted(Number.POSITIVE_INFINITY)
    const run = Effect.succeed(mine)
    const outcome = await Effect.runPromise(Effect.either(Effect.provide(execute(run), layer)))
    expect(outcome._tag === "Left" && outcome.left._tag).toBe("IdempotencyInProgress")
    expect(seen.claims).toBe(3)
    expect(seen.rolledBack).toBe(3)
  })
})
