/**
 * Where a request's reads may be answered from. A store with a standby (a streaming replica of
 * its database) answers the reads of a request marked here from it, as long as the standby has
 * replayed the request's key's last write (the fence `RateLimiter.wrote` records and the take of
 * the key's budget reads back), and from the primary otherwise; a store without one ignores the
 * mark. A transport marks the requests that only read and tolerate a standby's slightly older
 * view of everyone else's writes: the REST API's GETs of records, lists, events and analytics.
 */
import * as FiberRef from "effect/FiberRef"

/** Whether the current fiber's reads may come from a standby; false (the primary) unless marked. */
export const fromStandby: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)
