/**
 * Seeding by SQL for the list filters at scale (test/bench/scale.ts): deals, products (with their
 * stock items) and tasks of one organisation, with generate_series, each value of a filter spread
 * so that some filters match many rows, some a few and some none. Row n is created n milliseconds
 * before now, so the newest-first lists have a stable order. The ids a filter is given (pipelines,
 * contacts) are md5 uuids of the tag and a name, so that a run can name one that matches and one
 * that does not.
 */
import { createHash } from "node:crypto"
import type { Queryable } from "./seed.js"

/**
 * The uuid the seeding gives `name` under `tag`: the md5 of `<tag>:<name>`, marked as a version 4
 * uuid (as the API's id parameters must be), the same in SQL (`SQL_UUID`).
 */
export const seededUuid = (tag: string, name: string): string => {
  const hex = createHash("md5").update(`${tag}:${name}`).digest("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`
}

/** `seededUuid` in the seeding's SQL, the tag being `$2`. */
const SQL_UUID = (name: string) =>
  `overlay(overlay(md5($2::text || ':' || ${name}) placing '4' from 13) placing '8' from 17)::uuid`

const created = "date_trunc('milliseconds', now()) - n * interval '1 millisecond'"

/**
 * `count` deals: pipeline `pipeline-0` holds seven in ten and `pipeline-1` the rest (`pipeline-2`
 * none); status_kind open eight in ten, won the rest, lost none; each of count/5 contacts
 * (`contact-<i>`) has five deals.
 */
export const seedDeals = async (db: Queryable, organisationId: string, count: number, tag: string): Promise<void> => {
  await db.query(
    `INSERT INTO deals (id, organisation_id, title, value, currency, pipeline_id, status_id, status_kind,
       contact_id, company_id, owner_id, expected_close_date, lost_reason, closed_at, custom, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, 'Deal ' || n, (n % 1000) * 10, 'EUR',
       ${SQL_UUID("'pipeline-' || (CASE WHEN n % 10 < 7 THEN 0 ELSE 1 END)")},
       ${SQL_UUID("'stage-' || (CASE WHEN n % 10 < 7 THEN 0 ELSE 1 END) || (CASE WHEN n % 10 < 8 THEN 'open' ELSE 'won' END)")},
       CASE WHEN n % 10 < 8 THEN 'open' ELSE 'won' END,
       ${SQL_UUID("'contact-' || (n % greatest($3::integer / 5, 1))")}, NULL, NULL, NULL, NULL,
       CASE WHEN n % 10 < 8 THEN NULL ELSE ${created} END, '{}'::jsonb, ${created}, ${created}
     FROM generate_series(1, $3::integer) AS n`,
    [organisationId, tag, count]
  )
}

/**
 * `count` products and their stock items, in the organisation's default threshold (5) unless
 * said: untracked 35 %; out of stock none; low one in a thousand (half at the default threshold,
 * half at their own of 20); the rest ok (a twentieth at their own threshold). Active but one in a
 * thousand; kind physical 6/10, service 3/10, digital 1/10 (dropship and gift_card none);
 * category `category-0` to `category-49` (`category-none` none).
 */
export const seedProducts = async (
  db: Queryable,
  organisationId: string,
  count: number,
  tag: string
): Promise<void> => {
  // r = n % 10000: 0-4 low at the default threshold, 5-9 low at their own, 10-499 ok at their
  // own, 500-3999 untracked, the rest ok at the default.
  await db.query(
    `INSERT INTO products (id, organisation_id, sku, name, unit, unit_price, currency, vat_rate, active, kind,
       category, low_stock_threshold, stock, options, variants, created_at, updated_at)
     SELECT ${SQL_UUID("'product-' || n")}, $1::uuid, 'SKU-' || n, 'Product ' || n, 'pc', (n % 500) + 0.5,
       'EUR', 21, n % 1000 <> 0, (ARRAY['physical', 'physical', 'physical', 'physical', 'physical', 'physical',
         'service', 'service', 'service', 'digital'])[1 + n % 10],
       'category-' || (n % 50),
       CASE WHEN n % 10000 BETWEEN 5 AND 499 THEN 20 END,
       CASE WHEN n % 10000 < 5 THEN 1 + n % 5 WHEN n % 10000 < 10 THEN 10 WHEN n % 10000 < 500 THEN 100
         WHEN n % 10000 < 4000 THEN NULL ELSE 6 + n % 1000 END,
       '[]'::jsonb, '[]'::jsonb, ${created}, ${created}
     FROM generate_series(1, $3::integer) AS n`,
    [organisationId, tag, count]
  )
  // A product without variants is its own stock item.
  await db.query(
    `INSERT INTO stock_levels (item_id, organisation_id, product_id, level)
     SELECT id, organisation_id, id, stock FROM products WHERE organisation_id = $1::uuid`,
    [organisationId]
  )
}

/**
 * `count` tasks on the organisation's contacts (`contact-<i>` as the deals have them): done but
 * one in a thousand; priority normal 7/10, low 2/10, high 1/10, urgent none; a hundred assignees.
 */
export const seedTasks = async (db: Queryable, organisationId: string, count: number, tag: string): Promise<void> => {
  await db.query(
    `INSERT INTO tasks (id, organisation_id, title, type, priority, due_at, done, completed_at, assignee_id,
       entity_type, entity_id, description, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, 'Task ' || n, 'call',
       (ARRAY['normal', 'normal', 'normal', 'normal', 'normal', 'normal', 'normal', 'low', 'low', 'high'])[1 + n % 10],
       ${created} + interval '7 days', n % 1000 <> 0, CASE WHEN n % 1000 <> 0 THEN ${created} END,
       ${SQL_UUID("'user-' || (n % 100)")}, 'contact', ${SQL_UUID("'contact-' || (n % greatest($3::integer / 5, 1))")},
       NULL, ${created}, ${created}
     FROM generate_series(1, $3::integer) AS n`,
    [organisationId, tag, count]
  )
}

/** The organisation's customers become prospects, so that `status=customer` matches no contact. */
export const withoutCustomers = async (db: Queryable, organisationId: string): Promise<void> => {
  await db.query(`UPDATE contacts SET status = 'prospect' WHERE organisation_id = $1::uuid AND status = 'customer'`, [
    organisationId
  ])
}

/** A `deal.created` event for each of the organisation's deals, oldest first, with the payload our server writes. */
export const seedDealEvents = async (db: Queryable, organisationId: string): Promise<void> => {
  await db.query(
    `INSERT INTO events (organisation_id, event, data, created_at)
     SELECT d.organisation_id, 'deal.created',
       json_build_object('id', d.id, 'title', d.title, 'value', d.value, 'currency', d.currency,
         'pipeline_id', d.pipeline_id, 'status_id', d.status_id, 'contact_id', d.contact_id,
         'expected_close_date', d.expected_close_date),
       d.created_at
     FROM deals d WHERE d.organisation_id = $1::uuid ORDER BY d.created_at, d.id`,
    [organisationId]
  )
}
