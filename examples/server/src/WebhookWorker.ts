/**
 * Webhooks in the deployable server: the `Webhooks` service over the node sender and resolver,
 * and the worker that runs a dispatch round every poll interval. Tests turn the worker off and
 * call `Webhooks.dispatch` themselves, under a clock of their own.
 */
import { Webhooks } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { resolver, sender } from "./WebhookSender.js"

export interface WebhookSettings {
  /** Run the dispatcher in this process (default true). */
  readonly worker: boolean
  readonly pollIntervalMs: number
  /** Per delivery attempt (default 10 s). */
  readonly timeoutMs: number
  /** CRM_WEBHOOK_ALLOW_PRIVATE_TARGETS: local development and tests only. */
  readonly allowPrivateTargets: boolean
}

export const DEFAULTS: WebhookSettings = {
  worker: true,
  pollIntervalMs: 1000,
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

export const worker = (settings: WebhookSettings) =>
  settings.worker
    ? Layer.scopedDiscard(
        Effect.gen(function* () {
          const webhooks = yield* Webhooks.Webhooks
          // Rounds follow each other at once while they find work (a backlog drains at full speed),
          // then the worker waits a poll interval.
          const round = Effect.repeat(webhooks.dispatch, { while: (made) => made > 0 }).pipe(
            Effect.catchAll((error) => Effect.logWarning("webhook dispatch failed; retrying at the next poll", error)),
            // A defect in one round must not end delivery for the life of the process.
            Effect.catchAllDefect((defect) =>
              Effect.logError("webhook dispatch crashed; retrying at the next poll", defect)
            )
          )
          yield* Effect.forkScoped(Effect.repeat(round, Schedule.spaced(`${settings.pollIntervalMs} millis`)))
        })
      )
    : Layer.empty
