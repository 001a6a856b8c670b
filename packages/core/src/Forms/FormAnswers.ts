/**
 * A form's answers as pure rules: which are accepted, and the contact they describe. The first
 * refusal wins, so the answer names one `reason` and one `field`: an unknown key before anything
 * else, then the fields in the form's order.
 */
import * as Either from "effect/Either"
import { ContactPatch } from "../Contacts/ContactSchemas.js"
import { SubmissionRefused } from "../Errors.js"
import { isCalendarDate } from "../internal/dates.js"
import { EmailInput, normaliseEmail } from "../Wire.js"
import { CONTACT_TARGETS, type Form, type FormField } from "./FormDefinitions.js"

export type Reason = "missing_required" | "invalid_value" | "unknown_field" | "invalid_email"

const refuse = (reason: Reason, field: string) => new SubmissionRefused({ detail: { reason, field } })

const MAX_TEXT = 10_000
const Email = EmailInput
const PHONE = /^\+?[0-9 ().-]{3,50}$/

// Own keys only: a field named `constructor` or `toString` must not find `Object.prototype`.
const answerOf = (answers: Readonly<Record<string, unknown>>, key: string): unknown =>
  Object.hasOwn(answers, key) ? answers[key] : undefined

/** Empty answers count as not given: a browser sends "" for a field left blank. */
const isBlank = (value: unknown): boolean => value === undefined || value === null || value === ""

const accept = (field: FormField, value: unknown): Either.Either<unknown, Reason> => {
  switch (field.type) {
    case "text":
    case "textarea":
      return typeof value === "string" && value.length <= MAX_TEXT ? Either.right(value) : Either.left("invalid_value")
    case "email":
      return typeof value === "string" && Email.safeParse(value.trim()).success
        ? Either.right(normaliseEmail(value))
        : Either.left("invalid_email")
    case "phone":
      return typeof value === "string" && PHONE.test(value) ? Either.right(value) : Either.left("invalid_value")
    case "number": {
      // HTML forms send numbers as text.
      const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value
      return typeof number === "number" && Number.isFinite(number) ? Either.right(number) : Either.left("invalid_value")
    }
    case "select":
      return typeof value === "string" && (field.options ?? []).includes(value)
        ? Either.right(value)
        : Either.left("invalid_value")
    case "checkbox":
      return typeof value === "boolean" ? Either.right(value) : Either.left("invalid_value")
    case "date":
      return typeof value === "string" && isCalendarDate(value) ? Either.right(value) : Either.left("invalid_value")
  }
}

type ContactTarget = (typeof CONTACT_TARGETS)[number]
const isContactTarget = (target: string | undefined): target is ContactTarget =>
  (CONTACT_TARGETS as ReadonlyArray<string | undefined>).includes(target)

/**
 * An answer that fills a contact field must fit that field as the contacts API takes it (its
 * length limits above all): the contact is created from the answers without going through that
 * API's validation, so a form must not store what the API refuses.
 */
const fitsContact = (field: FormField, value: unknown): boolean =>
  !isContactTarget(field.maps_to) || ContactPatch.shape[field.maps_to].safeParse(String(value)).success

/** The accepted answers by field key (blank optional answers left out), or the first refusal. */
export const check = (
  form: Form,
  answers: Readonly<Record<string, unknown>>
): Either.Either<Record<string, unknown>, SubmissionRefused> => {
  const unknown = Object.keys(answers).find((key) => !form.fields.some((field) => field.key === key))
  if (unknown !== undefined) return Either.left(refuse("unknown_field", unknown))
  const accepted: Record<string, unknown> = {}
  for (const field of form.fields) {
    const value = answerOf(answers, field.key)
    // An unticked required checkbox (consent) is as good as no answer.
    if (isBlank(value) || (field.required && field.type === "checkbox" && value === false)) {
      if (field.required) return Either.left(refuse("missing_required", field.key))
      continue
    }
    const checked = accept(field, value)
    if (Either.isLeft(checked)) return Either.left(refuse(checked.left, field.key))
    if (!fitsContact(field, checked.right)) return Either.left(refuse("invalid_value", field.key))
    accepted[field.key] = checked.right
  }
  return Either.right(accepted)
}

export interface ContactDetails {
  readonly first_name?: string
  readonly last_name?: string
  readonly email?: string
  readonly phone?: string
  readonly source?: string
  readonly custom: Record<string, unknown>
}

/**
 * The contact the accepted answers describe, through each field's `maps_to`. A contact needs a
 * first name, last name or email: without any the submission is refused on the first field that
 * could have given one.
 */
export const contactOf = (
  form: Form,
  accepted: Readonly<Record<string, unknown>>
): Either.Either<ContactDetails, SubmissionRefused> => {
  const details: Record<string, unknown> = {}
  const custom: Record<string, unknown> = {}
  for (const field of form.fields) {
    const value = answerOf(accepted, field.key)
    if (field.maps_to === undefined || value === undefined) continue
    if (field.maps_to.startsWith("custom.")) custom[field.maps_to.slice("custom.".length)] = value
    else details[field.maps_to] = String(value)
  }
  const identified = ["first_name", "last_name", "email"].some((key) => details[key] !== undefined)
  if (!identified) {
    const identifying = form.fields.find((field) => ["first_name", "last_name", "email"].includes(field.maps_to ?? ""))
    return Either.left(refuse("missing_required", identifying?.key ?? form.fields[0]!.key))
  }
  return Either.right({ ...(details as Omit<ContactDetails, "custom">), custom })
}
