/**
 * Seeding by SQL into a database our server has migrated: contacts and their `contact.created`
 * events for one organisation (created through the admin API), with generate_series, so 10,000
 * rows take well under a second and a million a minute or so. Runs on a `pg.Client` or on PGlite.
 */

export interface Queryable {
  query<R = any>(text: string, params?: Array<unknown>): Promise<{ rows: Array<R> }>
}

const FIRST_NAMES = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "John", "Karen", "Niklaus"]

/**
 * `count` live contacts, created one millisecond apart going back from now (so the newest-first
 * list has a stable order), then one `contact.created` event per contact, oldest first, with the
 * payload our server writes (json, keys in the catalogue's order).
 */
export const seedOrganisation = async (
  db: Queryable,
  organisationId: string,
  count: number,
  tag: string
): Promise<void> => {
  await db.query(
    `INSERT INTO contacts (id, organisation_id, first_name, last_name, email, phone, company_id, status, source,
       custom, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, ($4::text[])[1 + n % 10], 'Contact ' || n,
       'c' || n || '.' || $2::text || '@bench.example', '+420 6' || lpad(n::text, 8, '0'), NULL,
       (ARRAY['lead', 'prospect', 'customer', 'inactive'])[1 + n % 4], 'bench', '{}'::jsonb,
       date_trunc('milliseconds', now()) - n * interval '1 millisecond',
       date_trunc('milliseconds', now()) - n * interval '1 millisecond'
     FROM generate_series(1, $3::integer) AS n`,
    [organisationId, tag, count, `{${FIRST_NAMES.join(",")}}`]
  )
  await db.query(
    `INSERT INTO events (organisation_id, event, data, created_at)
     SELECT c.organisation_id, 'contact.created',
       json_build_object('id', c.id, 'first_name', c.first_name, 'last_name', c.last_name, 'email', c.email,
         'phone', c.phone, 'company_id', c.company_id, 'status', c.status, 'source', c.source, 'custom', c.custom,
         'created_at', to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
       c.created_at
     FROM contacts c WHERE c.organisation_id = $1::uuid ORDER BY c.created_at, c.id`,
    [organisationId]
  )
}

/** Up to `limit` live contact ids of the organisation, in random order. */
export const contactIds = async (db: Queryable, organisationId: string, limit: number): Promise<Array<string>> =>
  (
    await db.query<{ id: string }>(
      `SELECT id FROM contacts WHERE organisation_id = $1::uuid AND archived_at IS NULL ORDER BY random() LIMIT $2`,
      [organisationId, limit]
    )
  ).rows.map((row) => row.id)

/** The organisation's event ids: first, last and how many. */
export const eventRange = async (
  db: Queryable,
  organisationId: string
): Promise<{ min: bigint; max: bigint; count: number }> => {
  const { rows } = await db.query<{ min: string | number; max: string | number; n: string | number }>(
    `SELECT min(id)::text AS min, max(id)::text AS max, count(*)::text AS n FROM events WHERE organisation_id = $1::uuid`,
    [organisationId]
  )
  return { min: BigInt(rows[0]!.min), max: BigInt(rows[0]!.max), count: Number(rows[0]!.n) }
}
