/** Rows of the site, booking and link page tables and their records. */
import { Bookings, type Contacts, LinkPages, Sites } from "@crm/core"
import { iso, isoOrNull } from "./rows.js"
import { jsonOf, literalOf } from "./storedValues.js"

type Timestamp = Date | string

export interface SiteRow {
  readonly id: Sites.SiteId
  readonly name: string
  readonly domain: string | null
  readonly language: string
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

/** Pages, posts and link pages share one publication status. */
const publicationStatus = literalOf("status", Sites.PublicationStatus)

export const toSite = (row: SiteRow): Sites.Site => ({
  id: row.id,
  name: row.name,
  domain: row.domain,
  language: row.language,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface PageRow {
  readonly id: Sites.PageId
  readonly site_id: Sites.SiteId
  readonly path: string
  readonly title: string
  readonly status: string
  readonly sections: unknown
  readonly published_at: Timestamp | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const pageSections = jsonOf("sections", Sites.Page.shape.sections)

export const toPage = (row: PageRow): Sites.Page => ({
  id: row.id,
  site_id: row.site_id,
  path: row.path,
  title: row.title,
  status: publicationStatus(row.status),
  sections: pageSections(row.sections),
  published_at: isoOrNull(row.published_at),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface PostRow {
  readonly id: Sites.PostId
  readonly site_id: Sites.SiteId
  readonly slug: string
  readonly title: string
  readonly excerpt: string | null
  readonly body: string
  readonly status: string
  readonly published_at: Timestamp | null
  readonly tags: unknown
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const postTags = jsonOf("tags", Sites.Post.shape.tags)

export const toPost = (row: PostRow): Sites.Post => ({
  id: row.id,
  site_id: row.site_id,
  slug: row.slug,
  title: row.title,
  excerpt: row.excerpt,
  body: row.body,
  status: publicationStatus(row.status),
  published_at: isoOrNull(row.published_at),
  tags: postTags(row.tags),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface SeriesRow {
  readonly id: Bookings.SeriesId
  readonly name: string
  readonly duration_minutes: number | string
  readonly location: string | null
  readonly questions: unknown
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const seriesQuestions = jsonOf("questions", Bookings.Series.shape.questions)

export const toSeries = (row: SeriesRow): Bookings.Series => ({
  id: row.id,
  name: row.name,
  duration_minutes: Number(row.duration_minutes),
  location: row.location,
  questions: seriesQuestions(row.questions),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface BookingRow {
  readonly id: Bookings.BookingId
  readonly series_id: Bookings.SeriesId | null
  readonly series_seq: number | string | null
  readonly contact_id: Contacts.ContactId | null
  readonly name: string
  readonly email: string
  readonly starts_at: Timestamp
  readonly ends_at: Timestamp
  readonly status: string
  readonly answers: unknown
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const bookingStatus = literalOf("status", Bookings.Booking.shape.status)
const bookingAnswers = jsonOf("answers", Bookings.Booking.shape.answers)

export const toBooking = (row: BookingRow): Bookings.Booking => ({
  id: row.id,
  series_id: row.series_id,
  series_seq: row.series_seq === null ? null : Number(row.series_seq),
  contact_id: row.contact_id,
  name: row.name,
  email: row.email,
  starts_at: iso(row.starts_at),
  ends_at: iso(row.ends_at),
  status: bookingStatus(row.status),
  answers: bookingAnswers(row.answers),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface LinkPageRow {
  readonly id: LinkPages.LinkPageId
  readonly slug: string
  readonly title: string
  readonly description: string | null
  readonly links: unknown
  readonly status: string
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const linkPageLinks = jsonOf("links", LinkPages.LinkPage.shape.links)

export const toLinkPage = (row: LinkPageRow): LinkPages.LinkPage => ({
  id: row.id,
  slug: row.slug,
  title: row.title,
  description: row.description,
  links: linkPageLinks(row.links),
  status: publicationStatus(row.status),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})
