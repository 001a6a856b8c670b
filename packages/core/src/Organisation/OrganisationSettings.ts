/**
 * The organisation-wide part of the settings document: what no one context owns (its time zone,
 * currency, seller, number series, plan and people). The contexts' own parts sit beside their
 * vocabulary; `Settings` composes them all.
 */
import { z } from "zod"
import { EmailInput } from "../Wire.js"
import { UserId } from "./UserIds.js"

export * from "./UserIds.js"

const isIanaZone = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

export const PlanInput = z.strictObject({
  read_only: z.boolean().default(false),
  max_contacts: z.number().int().min(0).nullable().default(null),
  max_companies: z.number().int().min(0).nullable().default(null)
})

/** One number series: `<prefix><year>-<counter padded to digits>`, e.g. `2026-000001`, `ZF2026-0001`. */
export const SeriesInput = z.strictObject({
  prefix: z
    .string()
    .max(10)
    .regex(/^[A-Za-z0-9/_-]*$/, "letters, digits, / _ -"),
  digits: z.number().int().min(1).max(10)
})

export const DEFAULT_NUMBERING = {
  normal: { prefix: "", digits: 6 },
  advance: { prefix: "ZF", digits: 4 },
  proforma: { prefix: "PF", digits: 4 },
  corrective: { prefix: "OD", digits: 4 },
  storno: { prefix: "DD", digits: 4 },
  quote: { prefix: "Q", digits: 4 },
  ticket: { prefix: "T", digits: 5 },
  return: { prefix: "RMA", digits: 4 },
  purchase_order: { prefix: "PO", digits: 4 },
  order: { prefix: "ORD", digits: 6 }
}

export const NumberingInput = z.strictObject({
  normal: SeriesInput.default(DEFAULT_NUMBERING.normal),
  advance: SeriesInput.default(DEFAULT_NUMBERING.advance),
  proforma: SeriesInput.default(DEFAULT_NUMBERING.proforma),
  corrective: SeriesInput.default(DEFAULT_NUMBERING.corrective),
  storno: SeriesInput.default(DEFAULT_NUMBERING.storno),
  quote: SeriesInput.default(DEFAULT_NUMBERING.quote),
  ticket: SeriesInput.default(DEFAULT_NUMBERING.ticket),
  return: SeriesInput.default(DEFAULT_NUMBERING.return),
  purchase_order: SeriesInput.default(DEFAULT_NUMBERING.purchase_order),
  order: SeriesInput.default(DEFAULT_NUMBERING.order)
})

/** The most people one organisation's settings list: keys and deals refer to them by id. */
export const MAX_USERS = 500

/** A person of the organisation: the owner an API key acts for, the owner of deals and records. */
export const UserInput = z.strictObject({
  id: UserId.optional(),
  name: z.string().min(1).max(200),
  email: EmailInput
})

export const User = z.object({ id: UserId, name: z.string(), email: z.string() })
export type User = z.infer<typeof User>

const CountryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 code such as CZ")
  .transform((code) => code.toUpperCase())

/** A field left blank is stored as none, so that a PDF prints no empty label. */
const SellerText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullable()
    .default(null)
    .transform((text) => (text === "" ? null : text))

/** Who issues the organisation's quotes and invoices, as their PDFs print it; every field may stay empty. */
export const SellerInput = z.strictObject({
  legal_name: SellerText(200).describe("the name printed as the seller; defaults to the organisation's name"),
  address: SellerText(500).describe("street, city and postcode, one line each (separated by new lines)"),
  registration_number: SellerText(50).describe("the company registration number (IČO in Czechia)"),
  vat_number: SellerText(50),
  email: SellerText(320),
  phone: SellerText(50),
  bank_account: SellerText(100).describe("where payments go: an IBAN or a local account number"),
  bic: SellerText(11)
})

export const NO_SELLER = {
  legal_name: null,
  address: null,
  registration_number: null,
  vat_number: null,
  email: null,
  phone: null,
  bank_account: null,
  bic: null
}

/** The organisation-wide fields of a settings replacement, in the document's order (before the contexts' parts). */
export const OrganisationSettingsInput = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  timezone: z.string().refine(isIanaZone, "must be an IANA time zone such as Europe/Prague").default("UTC"),
  default_currency: z
    .string()
    .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as EUR")
    .default("EUR"),
  payment_terms_days: z.number().int().min(0).max(365).default(14),
  country: CountryCode.nullable().default(null).describe("the seller's country, for the EU reverse-charge rule"),
  seller: SellerInput.default(NO_SELLER),
  numbering: NumberingInput.default(DEFAULT_NUMBERING),
  plan: PlanInput.default({ read_only: false, max_contacts: null, max_companies: null })
})

/** The people, last in the document. */
export const PeopleSettingsInput = z.strictObject({
  users: z
    .array(UserInput)
    .max(MAX_USERS)
    .default([])
    .superRefine((users, ctx) => {
      // Keys and deals refer to a person by id, mail goes to one address: each names one person.
      const ids = new Set<string>()
      const emails = new Set<string>()
      users.forEach((user, index) => {
        if (user.id !== undefined) {
          if (ids.has(user.id))
            ctx.addIssue({ code: "custom", path: [index, "id"], message: `id ${user.id} is used more than once` })
          ids.add(user.id)
        }
        const email = user.email.toLowerCase()
        if (emails.has(email))
          ctx.addIssue({
            code: "custom",
            path: [index, "email"],
            message: `email ${user.email} is used more than once`
          })
        emails.add(email)
      })
    })
})

/** The organisation-wide fields as stored and answered. */
export const OrganisationSettings = z.object({
  name: z.string(),
  timezone: z.string(),
  default_currency: z.string(),
  payment_terms_days: z.number().int(),
  // Documents stored before invoicing existed have neither.
  country: z.string().nullable().default(null),
  // Documents stored before the seller's details existed have none.
  seller: z
    .object({
      legal_name: z.string().nullable(),
      address: z.string().nullable(),
      registration_number: z.string().nullable(),
      vat_number: z.string().nullable(),
      email: z.string().nullable(),
      phone: z.string().nullable(),
      bank_account: z.string().nullable(),
      bic: z.string().nullable()
    })
    .default(NO_SELLER),
  numbering: z
    .object({
      normal: z.object({ prefix: z.string(), digits: z.number().int() }),
      advance: z.object({ prefix: z.string(), digits: z.number().int() }),
      proforma: z.object({ prefix: z.string(), digits: z.number().int() }),
      corrective: z.object({ prefix: z.string(), digits: z.number().int() }),
      storno: z.object({ prefix: z.string(), digits: z.number().int() }),
      quote: z.object({ prefix: z.string(), digits: z.number().int() }),
      // Documents stored before these series existed have none: they get the defaults.
      ticket: z.object({ prefix: z.string(), digits: z.number().int() }).default(DEFAULT_NUMBERING.ticket),
      return: z.object({ prefix: z.string(), digits: z.number().int() }).default(DEFAULT_NUMBERING.return),
      purchase_order: z
        .object({ prefix: z.string(), digits: z.number().int() })
        .default(DEFAULT_NUMBERING.purchase_order),
      order: z.object({ prefix: z.string(), digits: z.number().int() }).default(DEFAULT_NUMBERING.order)
    })
    .default(DEFAULT_NUMBERING),
  plan: z.object({
    read_only: z.boolean(),
    max_contacts: z.number().int().nullable(),
    max_companies: z.number().int().nullable()
  })
})

export const PeopleSettings = z.object({
  // Documents stored before people existed have none.
  users: z.array(User).default([])
})

export type OrganisationSettings = z.infer<typeof OrganisationSettings> & z.infer<typeof PeopleSettings>
