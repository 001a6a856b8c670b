/**
 * A page's path on its site, in one canonical form so that `/About/`, `about` and `/about` are the
 * same page (and the uniqueness rule sees them as one): a leading slash, lower case, no trailing
 * slash, no empty segments; the home page is `/`. Segments are ASCII slugs (letters, digits, `-`,
 * `_`, and dots between them, e.g. `sitemap.xml`), so a path never needs escaping in a URL.
 */
import * as Either from "effect/Either"

export const MAX_LENGTH = 200

const SEGMENT = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/

/** The canonical form of `input`, or why it is not a path. Idempotent on its own output. */
export const normalise = (input: string): Either.Either<string, string> => {
  const segments = input
    .trim()
    .toLowerCase()
    .split("/")
    .filter((segment) => segment !== "")
  const path = `/${segments.join("/")}`
  if (path.length > MAX_LENGTH) return Either.left(`must be at most ${MAX_LENGTH} characters`)
  const bad = segments.find((segment) => !SEGMENT.test(segment))
  if (bad !== undefined) {
    return Either.left(
      `segment "${bad}" may hold only letters a-z, digits, "-", "_" and dots between them (e.g. /about or /blog/first-post)`
    )
  }
  return Either.right(path)
}

/** A path already in canonical form. */
export const isCanonical = (path: string): boolean =>
  Either.match(normalise(path), { onLeft: () => false, onRight: (canonical) => canonical === path })
