import { statements } from "../internal/statements.js"

// archived_at is never set yet; it is there because the statements shared by every record table
// read only rows where it is null. The unique indexes are the uniqueness rules themselves, so two
// racing inserts cannot both win; they ignore archived rows, as a deleted page frees its path.
export default statements(
  `CREATE TABLE sites (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    name text NOT NULL,
    domain text,
    language text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX sites_list ON sites (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE UNIQUE INDEX sites_domain ON sites (organisation_id, domain)
    WHERE archived_at IS NULL AND domain IS NOT NULL`,
  `CREATE TABLE site_pages (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    site_id uuid NOT NULL REFERENCES sites (id),
    path text NOT NULL,
    title text NOT NULL,
    status text NOT NULL,
    sections jsonb NOT NULL,
    published_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX site_pages_list ON site_pages (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE INDEX site_pages_site ON site_pages (organisation_id, site_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE UNIQUE INDEX site_pages_path ON site_pages (site_id, path) WHERE archived_at IS NULL`,
  `CREATE TABLE site_posts (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    site_id uuid NOT NULL REFERENCES sites (id),
    slug text NOT NULL,
    title text NOT NULL,
    excerpt text,
    body text NOT NULL,
    status text NOT NULL,
    published_at timestamptz,
    tags jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX site_posts_list ON site_posts (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE INDEX site_posts_site ON site_posts (organisation_id, site_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX site_posts_tags ON site_posts USING gin (tags jsonb_path_ops) WHERE archived_at IS NULL`,
  `CREATE UNIQUE INDEX site_posts_slug ON site_posts (site_id, slug) WHERE archived_at IS NULL`,
  `CREATE TABLE booking_series (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    name text NOT NULL,
    duration_minutes integer NOT NULL,
    location text,
    questions jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX booking_series_list ON booking_series (organisation_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE TABLE bookings (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    series_id uuid REFERENCES booking_series (id),
    series_seq integer,
    contact_id uuid,
    name text NOT NULL,
    email text NOT NULL,
    starts_at timestamptz NOT NULL,
    ends_at timestamptz NOT NULL,
    status text NOT NULL,
    answers jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz,
    CHECK (ends_at > starts_at),
    CHECK (series_seq IS NULL OR (series_id IS NOT NULL AND series_seq >= 1))
  )`,
  `CREATE INDEX bookings_list ON bookings (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  // upcoming (soonest first) and past (latest first) both walk this one index.
  `CREATE INDEX bookings_starts ON bookings (organisation_id, starts_at, id) WHERE archived_at IS NULL`,
  `CREATE INDEX bookings_series ON bookings (organisation_id, series_id, series_seq, starts_at)
    WHERE archived_at IS NULL AND series_id IS NOT NULL`,
  `CREATE INDEX bookings_contact ON bookings (organisation_id, contact_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND contact_id IS NOT NULL`,
  `CREATE TABLE link_pages (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    slug text NOT NULL,
    title text NOT NULL,
    description text,
    links jsonb NOT NULL,
    status text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX link_pages_list ON link_pages (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE UNIQUE INDEX link_pages_slug ON link_pages (organisation_id, slug) WHERE archived_at IS NULL`
)
