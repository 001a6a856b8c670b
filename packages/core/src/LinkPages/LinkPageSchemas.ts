import { z } from "zod"
import { PublicationStatus, Slug } from "../Sites/SiteSchemas.js"
import { PageQuery, pageEnvelope, Timestamp } from "../Wire.js"
import { LinkPageId } from "./LinkPageIds.js"

export * from "./LinkPageIds.js"

/** Where a link may point: the web, a mail address or a phone number (the usual link-in-bio targets). */
export const LinkUrl = z
  .url({ protocol: /^(https?|mailto|tel)$/ })
  .max(2000)
  .describe("an https:, http:, mailto: or tel: address")

export const Link = z.strictObject({
  label: z.string().trim().min(1).max(100).describe("the button text"),
  url: LinkUrl
})

export const LinkPageCreate = z.strictObject({
  slug: Slug.describe("the page's address, unique within the organisation"),
  title: z.string().trim().min(1).max(200),
  description: z.string().trim().max(1000).nullable().optional().describe("a line under the title"),
  links: z.array(Link).max(100).default([]).describe("the buttons, top to bottom"),
  status: PublicationStatus.default("draft")
})

export const LinkPage = z.object({
  id: LinkPageId,
  slug: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  links: z.array(z.object({ label: z.string(), url: z.string() })),
  status: PublicationStatus,
  created_at: Timestamp,
  updated_at: Timestamp
})
export type LinkPage = z.infer<typeof LinkPage>
export const LinkPagePage = pageEnvelope(LinkPage)

export const LinkPageListQuery = z.object({
  status: PublicationStatus.optional().describe("draft or published"),
  ...PageQuery
})
export type LinkPageListQuery = z.output<typeof LinkPageListQuery>
