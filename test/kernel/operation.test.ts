/**
 * Named operations: a span while tracing is on, none while it is off (the server turns it off, as
 * it exports no traces), with the same result, failure and pipeables either way.
 */

import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { operation } from "../../packages/core/src/internal/operation.js"

const spanName = Effect.map(
  Effect.option(Effect.currentSpan),
  Option.map((span) => span.name)
)

const generator = operation("Test.generator")(function* (n: number) {
  return { n: n + 1, span: yield* spanName }
})

const plain = operation("Test.plain")((n: number) => Effect.map(spanName, (span) => ({ n: n + 1, span })))

const piped = operation("Test.piped")(
  (n: number) => (n > 0 ? Effect.succeed(n) : Effect.fail("not positive")),
  (effect, n) => Effect.orElseSucceed(effect, () => -n)
)

describe("operation", () => {
  it.effect("opens its named span while tracing is on, for a generator body and a plain one", () =>
    Effect.gen(function* () {
      expect(yield* generator(1)).toEqual({ n: 2, span: Option.some("Test.generator") })
      expect(yield* plain(1)).toEqual({ n: 2, span: Option.some("Test.plain") })
    })
  )

  it.effect("opens no span while tracing is off, with the same result", () =>
    Effect.gen(function* () {
      const off = <A, E>(effect: Effect.Effect<A, E>) => Effect.withTracerEnabled(effect, false)
      // A span with tracing off would be a no-op span; none at all means none was opened.
      expect(yield* off(generator(1))).toEqual({ n: 2, span: Option.none() })
      expect(yield* off(plain(1))).toEqual({ n: 2, span: Option.none() })
    })
  )

  it.effect("applies its pipeables, with the arguments, either way", () =>
    Effect.gen(function* () {
      expect(yield* piped(3)).toBe(3)
      expect(yield* piped(-2)).toBe(2)
      expect(yield* Effect.withTracerEnabled(piped(-2), false)).toBe(2)
    })
  )
})
