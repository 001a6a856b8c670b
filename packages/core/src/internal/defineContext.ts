/**
 * How a bounded context joins the kernel: its service's tag and the layer that builds the service,
 * with the other contexts' services it calls already provided. Each context declares this once, in
 * its own folder (`Notes/NotesContext.ts`); `Kernel.ts` merges the list, and the kernel's `Services`
 * and `StoragePorts` are read off these layers.
 */
import type * as Context from "effect/Context"
import * as Layer from "effect/Layer"

export interface ContextDefinition<Service, Shape, Requires> {
  readonly tag: Context.Tag<Service, Shape>
  /** Builds exactly the tag's service: its type names nothing else the kernel would then offer. */
  readonly layer: Layer.Layer<Service, never, Requires>
}

export const defineContext = <Service, Shape, Requires>(
  tag: Context.Tag<Service, Shape>,
  layer: Layer.Layer<Service, never, Requires>
): ContextDefinition<Service, Shape, Requires> => ({ tag, layer })

/** What every definition is, whatever it builds and needs (a layer's output is contravariant). */
interface AnyDefinition {
  readonly layer: Layer.Layer<never, never, unknown>
}

/** Distributed over the list's union: each context's service, each context's needs. */
export type ServiceOf<C> = C extends ContextDefinition<infer Service, infer _Shape, infer _Requires> ? Service : never
export type RequiresOf<C> = C extends ContextDefinition<infer _Service, infer _Shape, infer Requires> ? Requires : never

/**
 * Every context's layer in one. `Layer.mergeAll` types a tuple written out, not a list mapped from
 * another, hence the one cast; the result's type is read off the definitions themselves.
 */
export const mergeContexts = <const C extends ReadonlyArray<AnyDefinition>>(
  contexts: C
): Layer.Layer<ServiceOf<C[number]>, never, RequiresOf<C[number]>> =>
  Layer.mergeAll(...(contexts.map((context) => context.layer) as [AnyDefinition["layer"]])) as Layer.Layer<
    ServiceOf<C[number]>,
    never,
    RequiresOf<C[number]>
  >
