/**
 * The organisation's business clock: the time by which the kernel decides dates for it (default
 * issue and due dates, overdue invoices, quote expiry, ticket SLA breach, task due windows, stalled
 * deals, the analytics windows, the housekeeping's date jobs). It is Effect's `Clock` unless the
 * organisation was created in test mode and its clock is frozen; then it is the frozen instant.
 *
 * What stays on real time whatever the organisation: key expiry, rate windows, idempotency windows,
 * webhook and mail retry timing, and record timestamps (`created_at`, `updated_at`, event times),
 * which order lists, the event log and sync cursors and so must never run backwards.
 *
 * The service moves a test-mode organisation's clock (the admin API) and runs the date jobs that
 * fell due by the move, in the request, so that the next read sees their effect.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AccessRepository } from "./Access/AccessRepository.js"
import { iso } from "./BusinessClock/BusinessTime.js"
import type { ClockChange, ClockState } from "./BusinessClock/ClockSchemas.js"
import * as TestClock from "./BusinessClock/TestClock.js"
import { invalidField, NotFound, NotTestMode, type StorageError, type ValidationFailed } from "./Errors.js"
import { Invoicing } from "./Invoicing.js"
import { operation } from "./internal/operation.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import { Quotes } from "./Quotes.js"

export * from "./BusinessClock/BusinessTime.js"
export * from "./BusinessClock/ClockSchemas.js"
export * as TestClock from "./BusinessClock/TestClock.js"

export interface JobsRun {
  readonly quotes_expired: number
  readonly invoices_overdue: number
}

export class BusinessClock extends Context.Tag("@crm/core/BusinessClock")<
  BusinessClock,
  {
    /**
     * Freezes a test-mode organisation's clock at an instant or advances it, then runs the date
     * jobs that fell due. `not_test_mode` for a live organisation; a move backwards of a frozen
     * clock or a malformed duration is `validation_failed`.
     */
    readonly change: (
      organisationId: OrganisationId,
      change: ClockChange
    ) => Effect.Effect<ClockState, NotFound | NotTestMode | ValidationFailed | StorageError>
    /** Returns a test-mode organisation to real time (and runs the date jobs that then fall due). */
    readonly reset: (organisationId: OrganisationId) => Effect.Effect<ClockState, NotFound | NotTestMode | StorageError>
    /**
     * The organisation's date jobs, in order: sent quotes past `valid_until` expire, then unpaid
     * invoices past due become overdue; each by the organisation's business clock. Each job takes
     * whatever is past its date, so one run after a long move equals one run per elapsed day.
     */
    readonly runDueJobs: (organisation: Organisation) => Effect.Effect<JobsRun, StorageError>
  }
>() {}

/** The body, checked to hold exactly one of the two (`ClockChange`'s refinement). */
const asChange = (body: ClockChange): TestClock.ClockChange =>
  body.frozen_at !== undefined ? { frozen_at: body.frozen_at } : { advance_by: body.advance_by ?? "" }

// A concurrent change between our read and our write: read again, a few times.
const ATTEMPTS = 5

export const make = Effect.gen(function* () {
  const repo = yield* AccessRepository
  const quotes = yield* Quotes
  const invoicing = yield* Invoicing

  const runDueJobs = (organisation: Organisation) =>
    Effect.gen(function* () {
      const quotesExpired = yield* quotes.expire(organisation)
      const invoicesOverdue = yield* invoicing.markOverdue(organisation)
      return { quotes_expired: quotesExpired, invoices_overdue: invoicesOverdue }
    })

  const testModeOrganisation = (
    id: OrganisationId
  ): Effect.Effect<
    { readonly organisation: Organisation; readonly clock: TestClock.TestClock },
    NotFound | NotTestMode | StorageError
  > =>
    Effect.gen(function* () {
      const found = yield* repo.getOrganisation(id)
      if (Option.isNone(found)) return yield* new NotFound({ detail: "no such organisation" })
      const clock = found.value.test_clock
      if (clock === undefined) {
        return yield* new NotTestMode({
          detail: "the organisation is not in test mode: only one created with test_mode: true has a test clock"
        })
      }
      return { organisation: found.value, clock }
    })

  /** Reads the clock, works out where it goes, and sets it there unless it moved meanwhile. */
  const move = <E>(
    organisationId: OrganisationId,
    target: (clock: TestClock.TestClock, realMs: number) => Either.Either<string | null, E>,
    attempt = 1
  ): Effect.Effect<Organisation, E | NotFound | NotTestMode | StorageError> =>
    Effect.gen(function* () {
      const { organisation, clock } = yield* testModeOrganisation(organisationId)
      const frozenAt = yield* target(clock, yield* Clock.currentTimeMillis)
      const moved = yield* repo.setTestClock(organisationId, clock.frozen_at, frozenAt)
      if (!moved && attempt < ATTEMPTS) return yield* move(organisationId, target, attempt + 1)
      if (!moved) return yield* Effect.die(new Error(`the test clock of ${organisationId} kept moving`))
      return { ...organisation, test_clock: { frozen_at: frozenAt } }
    })

  const stateOf = (organisation: Organisation, jobs: JobsRun) =>
    Effect.map(
      iso(organisation),
      (now): ClockState => ({
        organisation_id: organisation.id,
        test_mode: true,
        frozen_at: organisation.test_clock?.frozen_at ?? null,
        now,
        jobs
      })
    )

  return BusinessClock.of({
    change: operation("BusinessClock.change")(function* (organisationId, change) {
      const organisation = yield* move(organisationId, (clock, realMs) =>
        Either.match(TestClock.next(clock, asChange(change), realMs), {
          onLeft: (refusal) => Either.left(invalidField(refusal.field, refusal.message)),
          onRight: (ms) => Either.right(new Date(ms).toISOString())
        })
      )
      return yield* stateOf(organisation, yield* runDueJobs(organisation))
    }),
    reset: operation("BusinessClock.reset")(function* (organisationId) {
      const organisation = yield* move(organisationId, () => Either.right(null))
      return yield* stateOf(organisation, yield* runDueJobs(organisation))
    }),
    runDueJobs
  })
})

export const layer = Layer.effect(BusinessClock, make)
