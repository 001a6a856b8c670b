/**
 * The transaction-scoped lock that serialises one organisation's writers until they commit. The
 * event log takes it to make ids visible in commit order; a counted plan limit takes it before
 * counting, so that no concurrent create (in this process or another) counts the same free place.
 * One lock for both: a unit that counts and then appends waits once, and two units can never
 * deadlock by taking two locks in opposite orders.
 */
const SEED = "42"

/** The SQL expression taking the lock of the organisation whose id is the parameter `param` ("$1"). */
export const organisationLock = (param: string): string =>
  `pg_advisory_xact_lock(hashtextextended(${param}::text, ${SEED}::bigint))`
