/** The site, booking and link page tables, each declared once, and their records. */
import { Bookings, type Contacts, LinkPages, Sites } from "@crm/core"
import { integer, json, literal, nullable, type RowOfTable, table, text, timestamp, uuid } from "./columns.js"

export const siteTable = table("sites", {
  id: uuid<Sites.SiteId>(),
  name: text(),
  domain: nullable(text()),
  language: text(),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type SiteRow = RowOfTable<typeof siteTable>
export const toSite = (row: SiteRow): Sites.Site => siteTable.read(row)

/** Pages, posts and link pages share one publication status. */
const publicationStatus = literal(Sites.PublicationStatus)

export const pageTable = table("site_pages", {
  id: uuid<Sites.PageId>(),
  site_id: uuid<Sites.SiteId>(),
  path: text(),
  title: text(),
  status: publicationStatus,
  sections: json(Sites.Page.shape.sections),
  published_at: nullable(timestamp()),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type PageRow = RowOfTable<typeof pageTable>
export const toPage = (row: PageRow): Sites.Page => pageTable.read(row)

export const postTable = table("site_posts", {
  id: uuid<Sites.PostId>(),
  site_id: uuid<Sites.SiteId>(),
  slug: text(),
  title: text(),
  excerpt: nullable(text()),
  body: text(),
  status: publicationStatus,
  published_at: nullable(timestamp()),
  tags: json(Sites.Post.shape.tags),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type PostRow = RowOfTable<typeof postTable>
export const toPost = (row: PostRow): Sites.Post => postTable.read(row)

export const seriesTable = table("booking_series", {
  id: uuid<Bookings.SeriesId>(),
  name: text(),
  duration_minutes: integer(),
  location: nullable(text()),
  questions: json(Bookings.Series.shape.questions),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type SeriesRow = RowOfTable<typeof seriesTable>
export const toSeries = (row: SeriesRow): Bookings.Series => seriesTable.read(row)

export const bookingTable = table("bookings", {
  id: uuid<Bookings.BookingId>(),
  series_id: nullable(uuid<Bookings.SeriesId>()),
  series_seq: nullable(integer()),
  contact_id: nullable(uuid<Contacts.ContactId>()),
  name: text(),
  email: text(),
  starts_at: timestamp(),
  ends_at: timestamp(),
  status: literal(Bookings.Booking.shape.status),
  answers: json(Bookings.Booking.shape.answers),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type BookingRow = RowOfTable<typeof bookingTable>
export const toBooking = (row: BookingRow): Bookings.Booking => bookingTable.read(row)

export const linkPageTable = table("link_pages", {
  id: uuid<LinkPages.LinkPageId>(),
  slug: text(),
  title: text(),
  description: nullable(text()),
  links: json(LinkPages.LinkPage.shape.links),
  status: publicationStatus,
  created_at: timestamp(),
  updated_at: timestamp()
})
export type LinkPageRow = RowOfTable<typeof linkPageTable>
export const toLinkPage = (row: LinkPageRow): LinkPages.LinkPage => linkPageTable.read(row)
