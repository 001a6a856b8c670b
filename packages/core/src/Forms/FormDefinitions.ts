/**
 * Forms as the organisation settings define them: named, typed fields, some mapped onto the
 * contact a submission creates or links, and optionally a lead source.
 */
import { z } from "zod"
import { FieldKey, Options } from "../Records/RecordTypes.js"
import { FormId } from "./FormIds.js"

export const FORM_FIELD_TYPES = ["text", "textarea", "email", "phone", "number", "select", "checkbox", "date"] as const
export const FormFieldType = z.enum(FORM_FIELD_TYPES)
export type FormFieldType = z.infer<typeof FormFieldType>

/** The contact fields an answer may fill; `custom.<key>` fills a custom field. */
export const CONTACT_TARGETS = ["first_name", "last_name", "email", "phone", "source"] as const
/** A contact needs one of these (the contacts' own rule), so a form must be able to fill one. */
const IDENTIFYING = ["first_name", "last_name", "email"]

export const MapsTo = z
  .string()
  .refine(
    (target) => (CONTACT_TARGETS as ReadonlyArray<string>).includes(target) || /^custom\.[^.\s]+$/.test(target),
    `must be one of ${CONTACT_TARGETS.join(", ")} or custom.<key>`
  )

export const FormFieldInput = z
  .strictObject({
    key: FieldKey,
    label: z.string().min(1).max(200).optional(),
    type: FormFieldType,
    required: z.boolean().default(false),
    options: Options.optional().describe("the choices of a select field"),
    maps_to: MapsTo.optional().describe("the contact field the answer fills")
  })
  .superRefine((field, ctx) => {
    if (field.type === "select" && field.options === undefined)
      ctx.addIssue({ code: "custom", path: ["options"], message: "a select field needs options" })
    if (field.type !== "select" && field.options !== undefined)
      ctx.addIssue({ code: "custom", path: ["options"], message: "only a select field has options" })
    if (field.maps_to === "email" && field.type !== "email")
      ctx.addIssue({ code: "custom", path: ["maps_to"], message: "only an email field maps to email" })
  })
export type FormField = z.output<typeof FormFieldInput>

export const FormInput = z
  .strictObject({
    id: FormId.optional(),
    name: z.string().min(1).max(200),
    fields: z.array(FormFieldInput).min(1).max(100),
    lead_source: z
      .union([z.boolean(), z.string().min(1).max(100)])
      .default(false)
      .describe("true (provider form) or a provider name: each submission is also a lead.received")
  })
  .superRefine((form, ctx) => {
    const keys = new Set<string>()
    const targets = new Set<string>()
    form.fields.forEach((field, f) => {
      if (keys.has(field.key))
        ctx.addIssue({ code: "custom", path: ["fields", f, "key"], message: `field ${field.key} is used twice` })
      keys.add(field.key)
      if (field.maps_to === undefined) return
      if (targets.has(field.maps_to))
        ctx.addIssue({ code: "custom", path: ["fields", f, "maps_to"], message: `${field.maps_to} is mapped twice` })
      targets.add(field.maps_to)
    })
    if (!IDENTIFYING.some((target) => targets.has(target)))
      ctx.addIssue({
        code: "custom",
        path: ["fields"],
        message: "a field must map to first_name, last_name or email, so a submission can make a contact"
      })
  })

export const Form = FormInput.safeExtend({ id: FormId })
export type Form = z.output<typeof Form>

/** The provider a lead-source form reports in `lead.received`; null when the form is no lead source. */
export const leadProvider = (form: Form): string | null =>
  form.lead_source === false ? null : form.lead_source === true ? "form" : form.lead_source

/** Ids name one form each. */
export const checkForms = (
  forms: ReadonlyArray<z.output<typeof FormInput>>
): ReadonlyArray<{ readonly path: ReadonlyArray<number | string>; readonly message: string }> => {
  const seen = new Set<string>()
  return forms.flatMap((form, f) => {
    if (form.id === undefined) return []
    const repeated = seen.has(form.id)
    seen.add(form.id)
    return repeated ? [{ path: [f, "id"], message: `id ${form.id} is used more than once` }] : []
  })
}
