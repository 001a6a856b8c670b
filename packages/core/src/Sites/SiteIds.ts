import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a site: branded, so that no other kind of id (or plain string) is taken for one. */
export const SiteId = IdInput.brand<"SiteId">()
export type SiteId = z.output<typeof SiteId>

/** The id of a site's page: branded, so that no other kind of id (or plain string) is taken for one. */
export const PageId = IdInput.brand<"PageId">()
export type PageId = z.output<typeof PageId>

/** The id of a site's post: branded, so that no other kind of id (or plain string) is taken for one. */
export const PostId = IdInput.brand<"PostId">()
export type PostId = z.output<typeof PostId>
