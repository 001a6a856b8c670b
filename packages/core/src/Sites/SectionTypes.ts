/**
 * The built-in catalogue of page section types: what each section of a site page may be, the zod
 * schema of its `data`, a description for whoever composes a page (a person or an assistant) and
 * an example. Pure: a page's sections are checked here before anything is stored; references to
 * other records (a form, a booking series) are listed for the service to check.
 */
import * as Either from "effect/Either"
import { z } from "zod"
import type { ValidationIssue } from "../Errors.js"
import { issuesOf } from "../Validation.js"
import { IdInput } from "../Wire.js"

const text = (max: number) => z.string().trim().min(1).max(max)
const webUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .describe("an http(s) address")
/** A link target: an absolute http(s) address, or a path on the same site. */
const link = z
  .union([
    webUrl,
    z
      .string()
      .regex(/^\/[^\s]*$/, "must be an http(s) address or a path starting with /")
      .max(2000)
  ])
  .describe("an http(s) address or a path on the same site such as /contact")
const image = z.strictObject({ url: webUrl, alt: z.string().max(300).describe("text for screen readers") })

export interface SectionType {
  readonly type: string
  readonly description: string
  readonly schema: z.ZodType
  readonly example: Record<string, unknown>
}

const define = <S extends z.ZodType>(
  type: string,
  description: string,
  schema: S,
  example: z.input<S> & Record<string, unknown>
): SectionType => ({ type, description, schema, example })

export const CATALOGUE = [
  define(
    "hero",
    "The large banner at the top of a page: a heading, an optional subheading and image, and an optional call-to-action button (label and url together).",
    z
      .strictObject({
        heading: text(200),
        subheading: text(500).optional(),
        image_url: webUrl.optional(),
        cta_label: text(80).optional(),
        cta_url: link.optional()
      })
      .refine((data) => (data.cta_label === undefined) === (data.cta_url === undefined), {
        message: "cta_label and cta_url come together",
        path: ["cta_url"]
      }),
    {
      heading: "Fresh bread every morning",
      subheading: "Baked in Brno since 1998",
      cta_label: "Order",
      cta_url: "/order"
    }
  ),
  define("text", "A block of rich text written in Markdown.", z.strictObject({ markdown: text(50_000) }), {
    markdown: "## Our story\nWe started with one oven and a lot of flour."
  }),
  define("image", "One image with its alternative text.", image, {
    url: "https://cdn.example.com/shop.jpg",
    alt: "The shop front"
  }),
  define(
    "gallery",
    "A grid of images (1 to 50), each with its alternative text.",
    z.strictObject({ images: z.array(image).min(1).max(50) }),
    { images: [{ url: "https://cdn.example.com/1.jpg", alt: "Sourdough loaves" }] }
  ),
  define(
    "features",
    "A list of 1 to 12 selling points, each a short title and a sentence.",
    z.strictObject({
      items: z
        .array(z.strictObject({ title: text(120), text: text(1000) }))
        .min(1)
        .max(12)
    }),
    { items: [{ title: "Local flour", text: "Milled 20 km away." }] }
  ),
  define("cta", "A call-to-action button on its own.", z.strictObject({ label: text(80), url: link }), {
    label: "Book a table",
    url: "/booking"
  }),
  define(
    "form",
    "Embeds one of the organisation's forms (defined in its settings); submissions create or update contacts.",
    z.strictObject({ form_id: IdInput.describe("the id of a form in the organisation's settings") }),
    { form_id: "5b1f0b8e-3c1d-4d9e-9a53-0c1c2b7e8f10" }
  ),
  define(
    "booking",
    "Embeds the booking widget of one booking series, where visitors pick a time and answer its questions.",
    z.strictObject({ series_id: IdInput.describe("the id of a booking series of the organisation") }),
    { series_id: "0f8a6c2e-7d4b-4b9a-8e61-3a2d5c9b1e77" }
  ),
  define(
    "faq",
    "Frequently asked questions: 1 to 50 question and answer pairs (answers in Markdown).",
    z
      .strictObject({
        items: z
          .array(z.strictObject({ question: text(300), answer: text(5000) }))
          .min(1)
          .max(50)
      })
      .describe("question and answer pairs"),
    { items: [{ question: "Do you deliver?", answer: "Yes, within Brno every morning." }] }
  )
] as const satisfies ReadonlyArray<SectionType>

export const TYPES = CATALOGUE.map((entry) => entry.type) as unknown as readonly [string, ...Array<string>]

const byType: ReadonlyMap<string, SectionType> = new Map(CATALOGUE.map((entry) => [entry.type, entry]))

export const find = (type: string): SectionType | undefined => byType.get(type)

export const MAX_SECTIONS = 100

export interface Section {
  readonly type: string
  readonly data: Record<string, unknown>
}

/** What a section type is, for a catalogue listing: its `data` as JSON Schema (the input a caller sends). */
export const describe = (entry: SectionType) => {
  const { $schema: _dialect, ...dataSchema } = z.toJSONSchema(entry.schema, { io: "input", unrepresentable: "any" })
  return { type: entry.type, description: entry.description, data_schema: dataSchema, example: entry.example }
}

/**
 * Each section's data parsed by its type's schema (defaults applied, text trimmed), or every issue
 * with paths like `sections.2.data.heading`; an unknown type is named at `sections.2.type`.
 */
export const check = (
  sections: ReadonlyArray<{ readonly type: string; readonly data: unknown }>,
  at = "sections"
): Either.Either<ReadonlyArray<Section>, ReadonlyArray<ValidationIssue>> => {
  const issues: Array<ValidationIssue> = []
  const parsed: Array<Section> = []
  sections.forEach((section, index) => {
    const entry = byType.get(section.type)
    if (entry === undefined) {
      issues.push({
        path: `${at}.${index}.type`,
        message: `unknown section type "${section.type}"; one of ${TYPES.join(", ")}`,
        code: "unknown_section_type"
      })
      return
    }
    const result = entry.schema.safeParse(section.data)
    if (result.success) parsed.push({ type: section.type, data: result.data as Record<string, unknown> })
    else {
      for (const issue of issuesOf(result.error)) {
        issues.push({ ...issue, path: [`${at}.${index}.data`, ...(issue.path === "" ? [] : [issue.path])].join(".") })
      }
    }
  })
  return issues.length === 0 ? Either.right(parsed) : Either.left(issues)
}

/** The records a page's sections point at, for the service to check against the organisation. */
export interface Reference {
  readonly kind: "form" | "booking_series"
  readonly id: string
  readonly path: string
}

export const references = (sections: ReadonlyArray<Section>, at = "sections"): ReadonlyArray<Reference> =>
  sections.flatMap((section, index): ReadonlyArray<Reference> => {
    if (section.type === "form" && typeof section.data.form_id === "string")
      return [{ kind: "form", id: section.data.form_id, path: `${at}.${index}.data.form_id` }]
    if (section.type === "booking" && typeof section.data.series_id === "string")
      return [{ kind: "booking_series", id: section.data.series_id, path: `${at}.${index}.data.series_id` }]
    return []
  })
