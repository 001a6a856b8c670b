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

/**
 * The SQL expression taking the lock of one natural key of an organisation (`Transaction.lockKey`),
 * the parameter being `organisation id/key`: its own seed, so it never shares a lock with an
 * organisation's.
 */
export const keyLock = (param: string): string => `pg_advisory_xact_lock(hashtextextended(${param}::text, 43::bigint))`
