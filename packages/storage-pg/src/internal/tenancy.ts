/**
 * Which tables are not an organisation's (issue 39). Every other table is a tenant table: it holds
 * `organisation_id`, every primary key, unique constraint, unique index and foreign key among
 * tenant tables leads with it (migration 0030), and every statement naming it filters by it, so that
 * the schema can be distributed by organisation (Citus's `create_distributed_table(..., 'organisation_id')`)
 * or split across databases by organisation. These stay whole: small, global, or the server's own
 * (Citus reference tables, or a database of their own beside the organisations' ones).
 * `test/catalogue.test.ts` reads the migrated catalogue and the statements sent against both lists.
 */

/** Each table that is not a tenant table, and why. */
export const GLOBAL_TABLES: Readonly<Record<string, string>> = {
  crm_migrations: "the migrator's record of the schema, one per database",
  organisations: "the tenants themselves: their id is every tenant row's organisation_id (colocated by id)",
  api_keys: "the key index by hash: a request's key is found before its organisation is known",
  rate_windows: "a key's budget, taken on every request by crm_rate_take(key), which knows no organisation",
  idempotency: "scoped by the key that sent the request (key_id leads); the port is given no organisation",
  exchange_rates: "published rates, the same for every organisation",
  cursor_secret: "one secret for the whole server",
  accounts: "a person, who signs in once and may belong to several organisations",
  sessions: "a person's sign-in, made before any organisation is chosen",
  sign_in_failures: "counted by the address signing in, before anyone is known",
  people_links: "a person's sign-up and reset links, which name no organisation",
  oauth_records: "the authorization server's clients, codes and grants, made before consent names an organisation",
  invitations: "found by its mailed token before the invitee is a member, and settled by its id alone",
  audit_log: "holds entries of no organisation (a person's sign-ins and password changes)"
}

/**
 * Statements that name a tenant table and do not filter by organisation, found by a piece of their
 * text (its spaces and line breaks as one space each), and why: sweeps of the whole store, which a distributed database runs on every
 * node. Kept short: a statement that serves one organisation's request names it.
 */
export const CROSS_TENANT_STATEMENTS: Readonly<Record<string, string>> = {
  "WITH purged AS (":
    "retention: what is older than the window goes, in every organisation (`internal/purge.ts`, the event log)",
  "AS oldest FROM": "the store's gauges: the backlogs of the whole server (`StoreGauges.ts`)",
  "FOR UPDATE OF h SKIP LOCKED": "the delivery worker leases the due hooks of every organisation",
  "SET lease_until = NULL, lease_token = NULL": "the delivery worker hands back a lease by its token",
  "FROM mail_outbox WHERE status = 'queued'": "the mail worker claims the due messages of every organisation",
  'SELECT organisation_id FROM "': "organisationOf: a public link names a document alone; this finds its organisation",
  "WHERE h.id = $1::uuid AND k.revoked_at IS NULL":
    "hookOwner: the port names the hook alone (core's WebhookRepository)",
  "FROM pg_sequences": "emptying a test store, whole (`Emptying.ts`)"
}
