/**
 * One tagged error per error code of the contract. Each carries the wire `code` and a
 * `detail`; the transports decide the status, the domain never does.
 */
import type * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import type { Scope } from "./Access/AccessSchemas.js"

export interface ValidationIssue {
  readonly path: string
  readonly message: string
  readonly code: string
}

/** A tagged error carrying its wire `code` and a `detail`: what every class made by `coded` is. */
export interface CodedError<Tag extends string, Code extends string> extends Cause.YieldableError {
  readonly _tag: Tag
  readonly code: Code
  readonly detail: unknown
}

export type CodedErrorClass<Tag extends string, Code extends string> = new (args: {
  readonly detail: unknown
}) => CodedError<Tag, Code>

/**
 * Typed by name rather than inferred: a declaration file must name the base of each exported class,
 * and the inferred class type reaches into Effect's internals.
 */
const coded = <Tag extends string, Code extends string>(tag: Tag, code: Code): CodedErrorClass<Tag, Code> =>
  class extends Data.TaggedError(tag)<{ readonly detail: unknown }> {
    readonly code: Code = code
  }

export class MissingBearerToken extends coded("MissingBearerToken", "missing_bearer_token") {}
export class InvalidApiKey extends coded("InvalidApiKey", "invalid_api_key") {}
export class ExpiredApiKey extends coded("ExpiredApiKey", "expired_api_key") {}
export class PlanRefused extends coded("PlanRefused", "plan_refused") {}
export class NotFound extends coded("NotFound", "not_found") {}
export class UnknownEvent extends coded("UnknownEvent", "unknown_event") {}
export class IdempotencyInProgress extends coded("IdempotencyInProgress", "idempotency_in_progress") {}
export class IdempotencyKeyReused extends coded("IdempotencyKeyReused", "idempotency_key_reused") {}
export class EmailAlreadyExists extends coded("EmailAlreadyExists", "email_already_exists") {}
export class NotDraft extends coded("NotDraft", "not_draft") {}
export class NotPayable extends coded("NotPayable", "not_payable") {}
export class TooManyHooks extends coded("TooManyHooks", "too_many_hooks") {}
/** A redelivery asked of a disabled hook, which sends nothing; `detail` is `{message, disabled_reason}`. */
export class HookDisabled extends coded("HookDisabled", "hook_disabled") {}
export class NoFieldsToUpdate extends coded("NoFieldsToUpdate", "no_fields_to_update") {}
export class NotIssuable extends coded("NotIssuable", "not_issuable") {}
export class InvalidTargetUrl extends coded("InvalidTargetUrl", "invalid_target_url") {}
export class SubmissionRefused extends coded("SubmissionRefused", "submission_refused") {}
export class VariantRequired extends coded("VariantRequired", "variant_required") {}
export class InvalidParameter extends coded("InvalidParameter", "invalid_parameter") {}
/**
 * Settings that would remove what records still use: a stage deals stand in, a record field
 * records hold values of. `detail` names each and how many use it.
 */
export class InUse extends coded("InUse", "in_use") {}
/** A state machine refusing a move; `detail` is `{from, to}`. */
export class TransitionNotAllowed extends coded("TransitionNotAllowed", "transition_not_allowed") {}
export class AlreadyInvoiced extends coded("AlreadyInvoiced", "already_invoiced") {}
/** A stock movement that would take the level below zero; `detail` says which product and how much is there. */
export class InsufficientStock extends coded("InsufficientStock", "insufficient_stock") {}
/** A `delta` (or a sale) on a product whose stock is not tracked. */
export class StockNotTracked extends coded("StockNotTracked", "stock_not_tracked") {}
/** A webshop order whose `external_id` the organisation already holds; `detail` carries the existing id. */
export class OrderAlreadyExists extends coded("OrderAlreadyExists", "order_already_exists") {}
/** An import batch refused by one of its lines; `detail` is `{line, type, error, detail}` (nothing was imported). */
export class ImportFailed extends coded("ImportFailed", "import_failed") {}
/** A site page whose path its site already holds; `detail` is `{path, page_id}` of the existing page. */
export class PathAlreadyExists extends coded("PathAlreadyExists", "path_already_exists") {}
/** A post or link page whose slug is taken; `detail` names the slug and the existing record's id. */
export class SlugAlreadyExists extends coded("SlugAlreadyExists", "slug_already_exists") {}
/** A site domain another site of the organisation already uses; `detail` is `{domain, site_id}`. */
export class DomainAlreadyExists extends coded("DomainAlreadyExists", "domain_already_exists") {}
/** A batch refused by one of its items; `detail` is `{index, error, detail}` (nothing was written). */
export class BatchFailed extends coded("BatchFailed", "batch_failed") {}
/** An organisation import whose organisation id the store already holds; `detail` is `{organisation_id, message}`. */
export class OrganisationExists extends coded("OrganisationExists", "organisation_exists") {}

/** A test clock asked of an organisation not created in test mode (its time is always the real time). */
export class NotTestMode extends coded("NotTestMode", "not_test_mode") {}

/** A signed-in person's role does not allow what they asked. */
export class Forbidden extends coded("Forbidden", "forbidden") {}
/** It makes, unmakes or removes an owner (or invites one), which only an owner does. */
export class OwnerOnly extends coded("OwnerOnly", "owner_only") {}
/** It would leave the organisation without an owner. */
export class LastOwner extends coded("LastOwner", "last_owner") {}
/** A member's key may hold only `read` and `write`. */
export class ScopeNotAllowed extends coded("ScopeNotAllowed", "scope_not_allowed") {}
/** The email and password do not match an account: one answer whether or not the address has one. */
export class InvalidCredentials extends coded("InvalidCredentials", "invalid_credentials") {}
/** No live session: no cookie, or one unknown, revoked, idle too long or past its absolute expiry. */
export class SessionRequired extends coded("SessionRequired", "session_required") {}
/** An invitation or mailed link that is unknown, used, revoked or expired. */
export class InvalidLink extends coded("InvalidLink", "invalid_link") {}
/** The address already belongs to the organisation. */
export class AlreadyMember extends coded("AlreadyMember", "already_member") {}

export class ValidationFailed extends Data.TaggedError("ValidationFailed")<{
  readonly detail: ReadonlyArray<ValidationIssue>
}> {
  readonly code = "validation_failed" as const
}

/** `missing_scope:<scope>`: the code itself names the scope the key lacks. */
export class MissingScope extends Data.TaggedError("MissingScope")<{ readonly scope: Scope }> {
  get code(): `missing_scope:${Scope}` {
    return `missing_scope:${this.scope}`
  }
  get detail(): string {
    return `this API key lacks the '${this.scope}' scope`
  }
}

export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly detail: string
  readonly retryAfterSeconds: number
  /** The budget it exceeded: requests per rolling minute. */
  readonly limit: number
}> {
  readonly code = "rate_limited" as const
}

/** Infrastructure failure behind a port; never a client's fault (a 5xx, never stored for idempotency). */
export class StorageError extends Data.TaggedError("StorageError")<{
  readonly message: string
  readonly cause?: unknown
}> {
  readonly code: "storage_error" | "service_unavailable" = "storage_error"
}

/**
 * The store cannot be reached at all (refused, reset, shutting down, no connection to be had): no
 * defect and no fault of the request, which may well succeed a few seconds later. A `StorageError`
 * still, so that every port may fail with it; only the adapter that sees the driver's error can
 * tell the two apart. `detail` says nothing of the cause: that is for the operator's log.
 */
export class StorageUnavailable extends StorageError {
  override readonly code = "service_unavailable" as const
  readonly detail = "the database cannot be reached at the moment; retry after the Retry-After seconds"
  /** Outages that end on their own (a restart, a failover, a dropped connection) take seconds. */
  readonly retryAfterSeconds = 5
}

/**
 * The database lacks migrations this build knows (a process started before `crm migrate` ran, or a
 * database restored from an older backup): the process is up but not ready. Only readiness fails
 * with it; `missing` names the migrations for the operator, the client's `detail` does not.
 */
export class NotMigrated extends Data.TaggedError("NotMigrated")<{ readonly missing: ReadonlyArray<string> }> {
  readonly code = "service_unavailable" as const
  readonly detail = "the database lacks migrations this build needs; retry after the Retry-After seconds"
  readonly retryAfterSeconds = 5
}

/** A mail transport could not hand a message over; the outbox worker retries it. Never on the wire. */
export class MailNotSent extends Data.TaggedError("MailNotSent")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export type DomainError =
  | MissingBearerToken
  | InvalidApiKey
  | ExpiredApiKey
  | MissingScope
  | PlanRefused
  | NotFound
  | UnknownEvent
  | IdempotencyInProgress
  | IdempotencyKeyReused
  | EmailAlreadyExists
  | NotDraft
  | NotPayable
  | TooManyHooks
  | HookDisabled
  | ValidationFailed
  | NoFieldsToUpdate
  | NotIssuable
  | InvalidTargetUrl
  | SubmissionRefused
  | VariantRequired
  | RateLimited
  | InvalidParameter
  | TransitionNotAllowed
  | InUse
  | AlreadyInvoiced
  | InsufficientStock
  | StockNotTracked
  | OrderAlreadyExists
  | PathAlreadyExists
  | SlugAlreadyExists
  | DomainAlreadyExists
  | BatchFailed

/** One issue naming a field, the commonest shape of `validation_failed`. */
export const invalidField = (path: string, message: string, code = "invalid"): ValidationFailed =>
  new ValidationFailed({ detail: [{ path, message, code }] })
