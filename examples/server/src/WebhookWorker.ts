/**
 * Webhooks in the deployable server: the `Webhooks` service over the node sender and resolver,
 * and the worker that keeps up to `concurrency` hooks in delivery at once. Tests turn the worker
 * off and call `Webhooks.dispatch` themselves, under a clock of their own.
 */
import { Webhooks } from "@crm/core"
import { Outage } from "@crm/http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import { resolver, sender } from "./WebhookSender.js"

export interface WebhookSettings {
  /** Run the dispatcher in this process (default true). */
  readonly worker: boolean
  /** How often to look for due deliveries while nothing else prompts a look. */
  readonly pollIntervalMs: number
  /** Hooks in delivery at once in this process, each one delivery at a time (default 16). */
  readonly concurrency: number
  /** Per delivery attempt (default 10 s). */
  readonly timeoutMs: number
  /** CRM_WEBHOOK_ALLOW_PRIVATE_TARGETS: local development and tests only. */
  readonly allowPrivateTargets: boolean
}

export const DEFAULTS: WebhookSettings = {
  worker: true,
  pollIntervalMs: 250,
  concurrency: 16,
  timeoutMs: Webhooks.DEFAULT_TIMEOUT_MS,
  allowPrivateTargets: false
}

export const settingsOf = (given: Partial<WebhookSettings> | undefined): WebhookSettings => ({ ...DEFAULTS, ...given })

/** `publicUrl` is where the CRM is served (CRM_PUBLIC_URL): https there means https targets only. */
export const service = (settings: WebhookSettings, publicUrl: string | undefined) =>
  Webhooks.layerWith({
    httpsRequired: publicUrl?.toLowerCase().startsWith("https:") === true,
    allowPrivateTargets: settings.allowPrivateTargets,
    timeoutMs: settings.timeoutMs
  }).pipe(Layer.provide(Layer.merge(sender, resolver)))

/**
 * Each claimed hook is worked in a fiber of its own from the moment it is claimed (its lease runs
 * from the claim), and a hook that finishes frees its slot for another claim at once: a slow or
 * hanging target holds one slot, never the others' deliveries. A hook's own deliveries go one at a
 * time (the lease), which keeps its first attempts in event order.
 */
export const worker = (settings: WebhookSettings) =>
  settings.worker
    ? Layer.scopedDiscard(
        Effect.gen(function* () {
          const webhooks = yield* Webhooks.Webhooks
          // A slot came free; sliding, so that finishes during a claim still prompt the next one.
          const freed = yield* Queue.sliding<void>(1)
          let inFlight = 0
          const release = Effect.suspend(() => {
            inFlight--
            return Queue.offer(freed, undefined)
          })
          // Polled every quarter second: an outage is logged when it begins and ends, not at every poll.
          const outage = Outage.make(Outage.forWorker("webhook delivery"))
          const claim = Effect.suspend(() =>
            settings.concurrency > inFlight ? webhooks.claimWork(settings.concurrency - inFlight) : Effect.succeed([])
          )
          const fill = Effect.map(Outage.round(outage, claim), (works) => works ?? []).pipe(
            Effect.flatMap((works) =>
              Effect.forEach(
                works,
                (work) => {
                  inFlight++
                  return Effect.fork(
                    work.pipe(
                      Effect.catchAll((error) =>
                        Effect.logWarning(
                          "webhook delivery failed; the hook is taken up again when its lease ends",
                          error
                        )
                      ),
                      Effect.catchAllDefect((defect) =>
                        Effect.logError(
                          "webhook delivery crashed; the hook is taken up again when its lease ends",
                          defect
                        )
                      ),
                      Effect.ensuring(release)
                    )
                  )
                },
                { discard: true }
              )
            ),
            Effect.catchAll((error) => Effect.logWarning("webhook claim failed; retrying at the next poll", error)),
            // A defect in one claim must not end delivery for the life of the process.
            Effect.catchAllDefect((defect) =>
              Effect.logError("webhook claim crashed; retrying at the next poll", defect)
            )
          )
          const wait = Effect.timeoutOption(Queue.take(freed), `${settings.pollIntervalMs} millis`)
          yield* Effect.forkScoped(Effect.forever(Effect.zipRight(fill, wait)))
        })
      )
    : Layer.empty
