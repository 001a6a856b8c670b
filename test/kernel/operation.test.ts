/**
 * Named operations: a span while tracing is on, none while it is off (the server turns it off, as
 * it exports no traces), with the same result, failure and pipeables either way.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { describe, expect, it } from "vitest"
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
  it("opens its named span while tracing is on, for a generator body and a plain one", async () => {
    expect(await Effect.runPromise(generator(1))).toEqual({ n: 2, span: Option.some("Test.generator") })
    expect(await Effect.runPromise(plain(1))).toEqual({ n: 2, span: Option.some("Test.plain") })
  })

  it("opens no span while tracing is off, with the same result", async () => {
    const off = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.withTracerEnabled(effect, false))
    // A span with tracing off would be a no-op span; none at all means none was opened.
    expect(await off(generator(1))).toEqual({ n: 2, span: Option.none() })
    expect(await off(plain(1))).toEqual({ n: 2, span: Option.none() })
  })

  it("applies its pipeables, with the arguments, either way", async () => {
    expect(await Effect.runPromise(piped(3))).toBe(3)
    expect(await Effect.runPromise(piped(-2))).toBe(2)
    expect(await Effect.runPromise(Effect.withTracerEnabled(piped(-2), false))).toBe(2)
  })
})
