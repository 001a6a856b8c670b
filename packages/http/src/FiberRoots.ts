/**
 * Opt-in: nothing in `@crm/http` calls it. A composition root that wants it provides `layer` (or
 * calls `useLinkedFiberRoots`) itself; the example server does (`examples/server/src/Server.ts`).
 * Building `Listener.layer` leaves Effect's fiber scope as it is, so an embedder's process keeps
 * Effect's own.
 *
 * What it does. Effect keeps every root fiber in one process-wide `Set` (its global fiber scope):
 * added when the fiber starts, deleted when it ends, one of each per request here. V8 compacts a
 * `Set` that has seen many deletions by copying it into a new table, and the table left behind
 * keeps the entries it held then until the next full collection. On a server those are the
 * requests in flight at each compaction, so instead of dying young, the objects of nearly every
 * request were promoted to the old generation: most of what our requests promoted, and the full
 * collections that stalled the event loop at saturation. `useLinkedFiberRoots` swaps that set for a
 * linked list whose removals leave nothing behind. Effect only adds to it, deletes from it and
 * iterates it (`Fiber.roots`).
 *
 * Why it exists (docs/benchmarks.md, and the passes of its history by title: "Seventh pass"). In a
 * bare `node:http` server, a query inside an Effect fiber promoted 606 KB per scavenge, 2 KB with
 * the list; through our server, `GET /contacts/{id}` went from 435 to 212 KB per scavenge and
 * `GET /me` from 489 to 250 KB. What was promoted made the full collections that, every 1.2 s or so,
 * held the 50-odd requests in flight for 35-55 ms each.
 *
 * Where it reaches past public APIs. The scope is an Effect internal, reached through Effect's
 * registry of global values (`globalThis["effect/GlobalValue"]`, key
 * `Symbol.for("effect/FiberScope/Global")`) and its `roots` field replaced; each fiber carries its
 * list node under a symbol of ours. What is found is checked first: if Effect has changed, nothing is
 * swapped and the server is only slower, never wrong.
 *
 * What removing it costs: about twice the bytes promoted per request on the routes above, and the
 * full collections and tail latency that come with them (the same pass).
 *
 * What it waits for: no upstream issue found. Effect's set of roots has been a `Set` since it was
 * added (https://github.com/Effect-TS/effect/pull/1043); nothing filed asks for a structure whose
 * deletions V8 does not retain, or for a way to turn root tracking off. One is worth filing.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** Where `effect/GlobalValue` keeps the process's global values, and the global fiber scope's key. */
const GLOBAL_STORE = "effect/GlobalValue"
const GLOBAL_SCOPE = Symbol.for("effect/FiberScope/Global")

/** The node of a fiber in the list, kept on the fiber itself: a map from fiber to node would churn as the set did. */
const NODE = Symbol.for("@crm/http/FiberRoots/node")

interface Node {
  owner: LinkedFiberRoots | undefined
  fiber: object | undefined
  previous: Node | undefined
  next: Node | undefined
}

type Linked = object & { [NODE]?: Node | undefined }

export class LinkedFiberRoots implements Iterable<object> {
  private first: Node | undefined = undefined
  private last: Node | undefined = undefined
  private count = 0

  get size(): number {
    return this.count
  }

  has(fiber: object): boolean {
    return (fiber as Linked)[NODE]?.owner === this
  }

  add(fiber: object): this {
    if (this.has(fiber)) return this
    const node: Node = { owner: this, fiber, previous: this.last, next: undefined }
    if (this.last === undefined) this.first = node
    else this.last.next = node
    this.last = node
    ;(fiber as Linked)[NODE] = node
    this.count++
    return this
  }

  delete(fiber: object): boolean {
    const node = (fiber as Linked)[NODE]
    if (node === undefined || node.owner !== this) return false
    ;(fiber as Linked)[NODE] = undefined
    if (node.previous === undefined) this.first = node.next
    else node.previous.next = node.next
    if (node.next === undefined) this.last = node.previous
    else node.next.previous = node.previous
    // The node may already be in the old generation: it must point at nothing younger.
    node.owner = node.previous = node.next = undefined
    node.fiber = undefined
    this.count--
    return true
  }

  *[Symbol.iterator](): Iterator<object> {
    for (let node = this.first; node !== undefined; node = node.next) if (node.fiber !== undefined) yield node.fiber
  }
}

/**
 * Swaps Effect's set of root fibers for a `LinkedFiberRoots`, keeping the fibers it holds; true
 * when the list is in place (now or from an earlier call), false when Effect's internals were not
 * as expected and nothing was changed.
 */
export const useLinkedFiberRoots = (): boolean => {
  const store = (globalThis as Record<string, unknown>)[GLOBAL_STORE]
  if (!(store instanceof Map)) return false
  const scope = store.get(GLOBAL_SCOPE) as { roots?: unknown } | undefined
  if (scope === undefined || scope === null || typeof scope !== "object") return false
  if (scope.roots instanceof LinkedFiberRoots) return true
  if (!(scope.roots instanceof Set)) return false
  const linked = new LinkedFiberRoots()
  for (const fiber of scope.roots) if (typeof fiber === "object" && fiber !== null) linked.add(fiber)
  scope.roots = linked
  return true
}

/**
 * `useLinkedFiberRoots` when built, for a composition root that asks for it; when Effect's internals
 * were not as expected it says so at debug level and changes nothing.
 */
export const layer: Layer.Layer<never> = Layer.effectDiscard(
  Effect.suspend(() =>
    useLinkedFiberRoots() ? Effect.void : Effect.logDebug("Effect's fiber roots are not a Set here; left as they are")
  )
)
