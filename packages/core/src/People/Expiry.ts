/**
 * When a session, an invitation or a mailed link stops being good, and when failed sign-ins are
 * throttled, as pure rules over times in milliseconds. The stores keep the records; these say what
 * a record means at a given moment, so that every process answers the same.
 */

const HOUR = 60 * 60 * 1000
const DAY = 24 * HOUR

/** A session unused this long is over. */
export const SESSION_IDLE_MS = 12 * HOUR
/** A session is over this long after sign-in, however much it is used. */
export const SESSION_ABSOLUTE_MS = 14 * DAY
/** An invitation's link is good this long. */
export const INVITATION_MS = 7 * DAY
/** A sign-in or password-reset link is good this long, once. */
export const LINK_MS = 30 * 60 * 1000

export interface SessionTimes {
  readonly created_at: number
  readonly last_used_at: number
  readonly revoked_at: number | null
}

export type SessionState = "live" | "revoked" | "idle" | "expired"

export const sessionState = (session: SessionTimes, now: number): SessionState => {
  if (session.revoked_at !== null && session.revoked_at <= now) return "revoked"
  if (now - session.created_at >= SESSION_ABSOLUTE_MS) return "expired"
  if (now - session.last_used_at >= SESSION_IDLE_MS) return "idle"
  return "live"
}

export interface LinkTimes {
  readonly created_at: number
  /** When it was used (an invitation accepted, a link followed); a link is good once. */
  readonly used_at: number | null
  readonly revoked_at: number | null
}

export type LinkState = "pending" | "used" | "revoked" | "expired"

/** An invitation (`INVITATION_MS`) or a mailed link (`LINK_MS`) at `now`. */
export const linkState = (link: LinkTimes, lifetimeMs: number, now: number): LinkState => {
  if (link.used_at !== null) return "used"
  if (link.revoked_at !== null) return "revoked"
  if (now - link.created_at >= lifetimeMs) return "expired"
  return "pending"
}

/** Failed sign-ins counted per account and per client address. */
export const MAX_FAILURES = 10
export const FAILURE_WINDOW_MS = 15 * 60 * 1000

/**
 * Whether another attempt may be made, given the times of the failed ones: at most `MAX_FAILURES`
 * in any `FAILURE_WINDOW_MS`; refused, it says how many seconds until the oldest counted one leaves
 * the window. The same for an account that does not exist, so the answer tells nothing of it.
 */
export const throttle = (
  failures: ReadonlyArray<number>,
  now: number
): { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number } => {
  const recent = failures.filter((at) => at <= now && now - at < FAILURE_WINDOW_MS).sort((a, b) => a - b)
  if (recent.length < MAX_FAILURES) return { allowed: true }
  const freed = recent[recent.length - MAX_FAILURES]! + FAILURE_WINDOW_MS
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((freed - now) / 1000)) }
}
