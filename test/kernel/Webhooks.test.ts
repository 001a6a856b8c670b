/**
 * The Webhooks service over fake I/O ports: names are resolved through `Resolver` at subscription,
 * and the sender is handed an address check that refuses what the target rules refuse.
 */
import { Access, Events, Webhooks } from "@crm/core"
import * as StorageMemory from "@crm/storage-memory"
import { expect, layer } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"

const DNS: Record<string, ReadonlyArray<string>> = {
  "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  "rebind.example.com": ["93.184.215.14", "10.0.0.7"],
  "metadata.example.com": ["169.254.169.254"]
}

const asked: Array<Webhooks.OutboundRequest> = []

const ports = Layer.mergeAll(
  Layer.succeed(Webhooks.Resolver, { resolve: (hostname) => Effect.succeed(DNS[hostname] ?? []) }),
  Layer.succeed(Webhooks.WebhookSender, {
    send: (request) =>
      Effect.sync(() => {
        asked.push(request)
        return { _tag: "Response", status: 204, retryAfter: undefined, excerpt: "", durationMs: 1 } as const
      })
  })
)

const services = Layer.mergeAll(
  Access.layer,
  Webhooks.layerWith({ httpsRequired: true, allowPrivateTargets: false, timeoutMs: 1000 })
).pipe(Layer.provide(ports), Layer.provideMerge(StorageMemory.layer))

const owner = Effect.gen(function* () {
  const access = yield* Access.Access
  const organisation = yield* access.createOrganisation({ name: "Hooks" })
  const key = yield* access.createKey(organisation.id, { scopes: ["read", "write"], allowed_ips: [] })
  return { organisationId: organisation.id, keyId: key.id }
})

const ruleOf = (target_url: string) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks.Webhooks
    const outcome = yield* Effect.either(webhooks.create(yield* owner, { target_url, events: ["contact.created"] }))
    return outcome._tag === "Right"
      ? "accepted"
      : ((outcome.left as { readonly detail?: { readonly rule?: string } }).detail?.rule ?? outcome.left.code)
  })

// On the live clock, as a server runs it: the event is stamped and the signature checked against the real time.
layer(services, { excludeTestServices: true })("Webhooks service", (it) => {
  it.effect("checks every address a target name resolves to, at subscription", () =>
    Effect.gen(function* () {
      expect(yield* ruleOf("https://hooks.example.com/crm")).toBe("accepted")
      expect(yield* ruleOf("https://rebind.example.com/crm")).toBe("private")
      expect(yield* ruleOf("https://metadata.example.com/")).toBe("metadata")
      // Not resolvable now: accepted, since every delivery checks the address it connects to.
      expect(yield* ruleOf("https://nowhere.example.com/")).toBe("accepted")
      expect(yield* ruleOf("http://hooks.example.com/crm")).toBe("https_required")
    })
  )

  it.effect("hands the sender the stored body, signed, and an address check refusing non-public addresses", () =>
    Effect.gen(function* () {
      const webhooks = yield* Webhooks.Webhooks
      const events = yield* Events.EventLog
      const who = yield* owner
      const hook = yield* webhooks.create(who, {
        target_url: "https://hooks.example.com/crm",
        events: ["contact.created"]
      })
      yield* events.append(
        who.organisationId,
        [{ event: "contact.created", data: { id: "c1" } }],
        new Date().toISOString()
      )
      expect(yield* webhooks.dispatch).toBe(1)
      const [envelope] = yield* events.after(who.organisationId, { since: 0n, event: undefined, limit: 1 })
      const [request] = asked
      expect(request!.body).toBe(JSON.stringify(envelope!))
      expect(request!.headers["x-service-event-id"]).toBe(envelope!.id)
      expect(
        yield* Webhooks.verifySignature(request!.body, request!.headers["x-service-signature"], hook.secret, {
          toleranceSeconds: 60
        })
      ).toBe(true)
      expect(request!.refuseAddress("93.184.215.14")).toBeUndefined()
      expect(request!.refuseAddress("10.0.0.7")).toMatch(/private/)
      expect(request!.refuseAddress("::ffff:127.0.0.1")).toMatch(/loopback/)
    })
  )
})

// Receivers that answer only just before the timeout: the slowest a claimed batch can be.
const sent: Array<string> = []
const slowPorts = Layer.mergeAll(
  Layer.succeed(Webhooks.Resolver, { resolve: () => Effect.succeed(["93.184.215.14"]) }),
  Layer.succeed(Webhooks.WebhookSender, {
    send: (request) =>
      Effect.sync(() => sent.push(`${request.url} ${request.headers["x-service-event-id"]}`)).pipe(
        Effect.zipRight(Effect.sleep(Duration.millis(request.timeoutMs - 1))),
        Effect.as({ _tag: "Response", status: 204, retryAfter: undefined, excerpt: "", durationMs: 1 } as const)
      )
  })
)
const slowServices = Layer.mergeAll(
  Access.layer,
  Webhooks.layerWith({ httpsRequired: true, allowPrivateTargets: false, timeoutMs: 10_000 })
).pipe(Layer.provide(slowPorts), Layer.provideMerge(StorageMemory.layer))

// On the test clock: the leases run out as the test moves the clock.
layer(slowServices)("Webhooks dispatcher under load", (it) => {
  it.effect(
    "works every claimed hook within its lease, so a second dispatcher never sends a delivery again",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00.000Z"))
        const webhooks = yield* Webhooks.Webhooks
        const events = yield* Events.EventLog
        const who = yield* owner
        // A full claim: 20 hooks with 10 due deliveries each.
        for (let i = 0; i < 20; i++) {
          yield* webhooks.create(who, { target_url: `https://hooks.example.com/${i}`, events: ["contact.created"] })
        }
        for (let i = 0; i < 10; i++) {
          const at = new Date(yield* Clock.currentTimeMillis).toISOString()
          yield* events.append(who.organisationId, [{ event: "contact.created", data: { id: `c${i}` } }], at)
        }
        const first = yield* Effect.fork(webhooks.dispatch)
        // Another process's dispatcher comes by once the first one's leases (10 x 10 s + 30 s) have run out.
        let second: Fiber.RuntimeFiber<number, unknown> | undefined
        for (let elapsed = 1; elapsed <= 400; elapsed++) {
          yield* TestClock.adjust(Duration.seconds(1))
          if (elapsed === 131) second = yield* Effect.fork(webhooks.dispatch)
        }
        expect(yield* Fiber.join(first)).toBe(200)
        expect(yield* Fiber.join(second!)).toBe(0)
        expect(sent).toHaveLength(200)
        expect(new Set(sent).size).toBe(200)
      }),
    30_000
  )
})
