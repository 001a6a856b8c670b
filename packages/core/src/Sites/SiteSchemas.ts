import * as Either from "effect/Either"
import { z } from "zod"
import { PageQuery, pageEnvelope, Timestamp } from "../Wire.js"
import * as PagePath from "./PagePath.js"
import * as SectionTypes from "./SectionTypes.js"
import { PageId, PostId, SiteId } from "./SiteIds.js"

export * from "./SiteIds.js"

export const PublicationStatus = z.enum(["draft", "published"])
export type PublicationStatus = z.infer<typeof PublicationStatus>

/** A host name such as `www.example.com`, lower-cased; no scheme, port or path. */
export const Domain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(
    /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/,
    "must be a host name such as www.example.com (no scheme, port or path)"
  )

/** A URL slug: lower-case letters and digits in words joined by single hyphens. */
export const Slug = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(200)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "must be lower-case letters and digits joined by hyphens, e.g. spring-sale")

/** A page path, normalised (see `PagePath`): `About/` arrives as `/about`. */
export const Path = z
  .string()
  .max(PagePath.MAX_LENGTH + 50)
  .transform((input, ctx) =>
    Either.match(PagePath.normalise(input), {
      onLeft: (message) => {
        ctx.addIssue({ code: "custom", message, input })
        return z.NEVER
      },
      onRight: (path) => path
    })
  )
  .describe(
    'the page\'s path on its site: "/" for the home page, "/about", "/blog/first-post"; normalised to lower case'
  )

export const SiteCreate = z.strictObject({
  name: z.string().trim().min(1).max(200),
  domain: Domain.nullable().optional().describe("the site's host name; unique within the organisation"),
  language: z
    .string()
    .regex(/^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/, "must be a language tag such as en or cs-CZ")
    .default("en")
    .describe("the language of the site's content, a BCP 47 tag; default en")
})

export const Site = z.object({
  id: SiteId,
  name: z.string(),
  domain: z.string().nullable(),
  language: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Site = z.infer<typeof Site>
export const SitePage = pageEnvelope(Site)

export const SectionInput = z.strictObject({
  type: z.enum(SectionTypes.TYPES).describe("a section type of the catalogue (list_section_types)"),
  data: z.record(z.string(), z.unknown()).describe("the section's content, as the type's data schema says")
})

export const Sections = z
  .array(SectionInput)
  .max(SectionTypes.MAX_SECTIONS)
  .superRefine((sections, ctx) => {
    Either.match(SectionTypes.check(sections, ""), {
      onLeft: (issues) => {
        for (const issue of issues) {
          ctx.addIssue({ code: "custom", message: issue.message, path: issue.path.split(".").filter((p) => p !== "") })
        }
      },
      onRight: () => undefined
    })
  })
  .describe("the page's content, top to bottom: each section a catalogue type and its data")

const publish = z
  .boolean()
  .default(false)
  .describe("true publishes at once (published_at = now); otherwise the page is saved as a draft")

export const PageCreate = z.strictObject({
  site_id: SiteId.describe("the site the page belongs to"),
  path: Path,
  title: z.string().trim().min(1).max(300).describe("the page title, shown in the browser tab and search results"),
  sections: Sections.default([]),
  publish
})

export const Section = z.object({ type: z.string(), data: z.record(z.string(), z.unknown()) })

export const Page = z.object({
  id: PageId,
  site_id: SiteId,
  path: z.string(),
  title: z.string(),
  status: PublicationStatus,
  sections: z.array(Section),
  published_at: Timestamp.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Page = z.infer<typeof Page>
export const PagePage = pageEnvelope(Page)

export const Tag = z.string().trim().toLowerCase().min(1).max(50)

export const PostCreate = z.strictObject({
  site_id: SiteId.describe("the site the post belongs to"),
  slug: Slug.describe("the post's address on its site's blog; unique within the site"),
  title: z.string().trim().min(1).max(300),
  excerpt: z.string().trim().max(1000).nullable().optional().describe("a short summary for listings"),
  body: z.string().max(200_000).describe("the post in Markdown"),
  tags: z
    .array(Tag)
    .max(30)
    .default([])
    .transform((tags) => [...new Set(tags)])
    .describe("topics, compared case-insensitively (stored lower-case, duplicates dropped)"),
  publish
})

export const Post = z.object({
  id: PostId,
  site_id: SiteId,
  slug: z.string(),
  title: z.string(),
  excerpt: z.string().nullable(),
  body: z.string(),
  status: PublicationStatus,
  published_at: Timestamp.nullable(),
  tags: z.array(z.string()),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Post = z.infer<typeof Post>
export const PostPage = pageEnvelope(Post)

export const SiteListQuery = z.object({ ...PageQuery })
export type SiteListQuery = z.output<typeof SiteListQuery>

export const PageListQuery = z.object({
  site_id: SiteId.optional().describe("only the pages of this site"),
  status: PublicationStatus.optional().describe("draft or published"),
  ...PageQuery
})
export type PageListQuery = z.output<typeof PageListQuery>

export const PostListQuery = z.object({
  site_id: SiteId.optional().describe("only the posts of this site"),
  status: PublicationStatus.optional().describe("draft or published"),
  tag: Tag.optional().describe("only posts carrying this tag (case-insensitive)"),
  ...PageQuery
})
export type PostListQuery = z.output<typeof PostListQuery>
