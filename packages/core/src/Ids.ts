/**
 * Where the kernel's ids come from, beside Effect's `Clock` and `Random`: random UUIDs unless a
 * composition says otherwise, and a seeded sequence for tests, so that a run of services replays
 * with the very same ids from its seed.
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import { PCGRandom } from "effect/Utils"
import type { z } from "zod"

export interface IdSource {
  /**
   * A new UUID. Synchronous, like Clock's `unsafeCurrentTimeMillis`: ids are minted on every
   * write, inside the records being built, and an effect per id would cost a fiber step each.
   */
  readonly next: () => string
}

const random: IdSource = { next: () => crypto.randomUUID() }

/** A reference with a default, as Clock and Random are: compositions that say nothing get random UUIDs. */
export class Ids extends Context.Reference<Ids>()("@crm/core/Ids", { defaultValue: (): IdSource => random }) {}

const HEX = Array.from({ length: 256 }, (_, n) => n.toString(16).padStart(2, "0"))

/**
 * Version 4 UUIDs drawn from Effect's seeded generator (the one `Random.make` uses): the same seed
 * gives the same sequence. They look random to every schema that checks a uuid.
 */
export const seeded = (seed: number): IdSource => {
  const generator = new PCGRandom(seed)
  const bytes = new Uint8Array(16)
  return {
    next: () => {
      for (let n = 0; n < 16; n++) bytes[n] = generator.integer(256)
      bytes[6] = (bytes[6]! & 0x0f) | 0x40
      bytes[8] = (bytes[8]! & 0x3f) | 0x80
      let text = ""
      for (let n = 0; n < 16; n++) text += (n === 4 || n === 6 || n === 8 || n === 10 ? "-" : "") + HEX[bytes[n]!]
      return text
    }
  }
}

/** For tests: provide under the kernel's layer so every service mints its ids from `seed`. */
export const layerSeeded = (seed: number): Layer.Layer<Ids> => Layer.succeed(Ids, seeded(seed))

/**
 * Names a string as an id of the schema's kind (`Organisation.OrganisationId`), where it is already
 * known to be one: an id just minted, one read back from the kernel's own store, a path id the
 * transport has validated. The brand is a type only, so nothing is checked or copied.
 */
export const brand = <S extends z.ZodType<string>>(_kind: S, value: string): z.output<S> => value as z.output<S>
