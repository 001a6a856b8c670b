/**
 * A hook's circuit: a target that gave no answer to several attempts running (timeouts, refused
 * or reset connections) is paused as a whole, so that it stops holding a dispatcher's worker for a
 * timeout per delivery. The pause grows on the retry ladder with each attempt that still gets no
 * answer; any answer, even an error status, closes the circuit. Pure: time and jitter come in.
 */
import { JITTER, LADDER_MS } from "./RetryLadder.js"

/** Unanswered attempts in a row that open the circuit. */
export const OPEN_AFTER = 3

export interface CircuitState {
  /** Attempts in a row that got no answer. */
  readonly unanswered: number
  /** While the circuit is open: until when none of the hook's deliveries is attempted. */
  readonly pausedUntil: number | null
}

export const CLOSED: CircuitState = { unanswered: 0, pausedUntil: null }

/**
 * The hook's circuit after an attempt at `now`: the `OPEN_AFTER`-th unanswered attempt in a row
 * pauses the hook for the ladder's first retry step, each further one (the probe made when a pause
 * ends) for the next step, up to the last. `jitter` is a draw from [0, 1).
 */
export const afterAttempt = (input: {
  readonly answered: boolean
  readonly unanswered: number
  readonly now: number
  readonly jitter: number
}): CircuitState => {
  if (input.answered) return CLOSED
  const unanswered = input.unanswered + 1
  if (unanswered < OPEN_AFTER) return { unanswered, pausedUntil: null }
  const step = LADDER_MS[Math.min(unanswered - OPEN_AFTER + 1, LADDER_MS.length - 1)]!
  return { unanswered, pausedUntil: input.now + step + Math.floor(step * JITTER * input.jitter) }
}
