/**
 * Names a service operation for tracing, as `Effect.fn(name)` does, but opens its span only while
 * tracing is on (Effect's `currentTracerEnabled`, which `Layer.setTracerEnabled` sets).
 *
 * `Effect.fn(name)` pays for a span on every call even when no tracer exports it: a captured stack
 * (`new Error()`), the span object, and a copy of the fiber's whole context to make the span the
 * parent of what runs inside. On a request that is tens of microseconds and most of its garbage
 * (see docs/benchmarks.md). With tracing off the body runs as `Effect.fnUntraced` would run it.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import type * as Tracer from "effect/Tracer"
import { isGeneratorFunction } from "effect/Utils"

type Traced = Effect.fn.Gen & Effect.fn.NonGen

export const operation = (name: string, options?: Tracer.SpanOptions): Traced =>
  ((body: (...args: Array<unknown>) => unknown, ...pipeables: Array<(effect: unknown) => unknown>) => {
    const traced = (Effect.fn(name, options) as (...all: Array<unknown>) => (...args: Array<unknown>) => unknown)(
      body,
      ...pipeables
    )
    // `fnUntraced` takes only generator bodies; a plain body already returns its effect.
    const untraced = isGeneratorFunction(body)
      ? (Effect.fnUntraced as (...all: Array<unknown>) => (...args: Array<unknown>) => unknown)(body, ...pipeables)
      : function (this: unknown, ...args: Array<unknown>) {
          let effect = body.apply(this, args)
          for (const pipeable of pipeables) effect = (pipeable as (...all: Array<unknown>) => unknown)(effect, ...args)
          return effect
        }
    return function (this: unknown, ...args: Array<unknown>) {
      return Effect.withFiberRuntime(
        (fiber) => (fiber.getFiberRef(FiberRef.currentTracerEnabled) ? traced : untraced).apply(this, args) as never
      )
    }
  }) as unknown as Traced
