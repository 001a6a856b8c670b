/**
 * What one sending attempt does to an outbox message, as pure rules: success marks it sent; a
 * failure keeps it queued for a later attempt, further off each time, until the attempts run out
 * and it is failed for good (kept, with its last error, for an operator to see).
 */
import type { MailMessage } from "./MailSchemas.js"

export const MAX_ATTEMPTS = 6

/** Wait after the n-th failed attempt: 1 min, 5 min, 30 min, 2 h, 6 h. */
const BACKOFF_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000] as const

export const backoffMs = (attempts: number): number =>
  BACKOFF_MS[Math.min(Math.max(attempts, 1), BACKOFF_MS.length) - 1]!

export const succeeded = (message: MailMessage, at: string): MailMessage => ({
  ...message,
  status: "sent",
  last_error: null,
  next_attempt_at: null,
  sent_at: at
})

export const failed = (message: MailMessage, error: string, at: string): MailMessage =>
  message.attempts >= MAX_ATTEMPTS
    ? { ...message, status: "failed", last_error: error, next_attempt_at: null }
    : {
        ...message,
        status: "queued",
        last_error: error,
        next_attempt_at: new Date(Date.parse(at) + backoffMs(message.attempts)).toISOString()
      }
