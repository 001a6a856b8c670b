import { statements } from "../internal/statements.js"

/**
 * What a process's cache of keys is checked against (`internal/KeyCache.ts`): raised by every
 * change of the organisation's keys or settings, read by every request's budget statement. A
 * constant default: no table rewrite.
 */
export default statements(`ALTER TABLE organisations ADD COLUMN access_version bigint NOT NULL DEFAULT 0`)
