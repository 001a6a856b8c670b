/**
 * Effect keeps every root fiber in one process-wide `Set` (its global fiber scope): added when the
 * fiber starts, deleted when it ends, one of each per request here. V8 compacts a `Set` that has
 * seen many deletions by copying it into a new table, and the table left behind keeps the entries
 * it held then until the next full collection. On a server those are the requests in flight at
 * each compaction, so instead of dying young, the objects of nearly every request were promoted to
 * the old generation: most of what our requests promoted, and the full collections that stalled
 * the event loop at saturation (docs/benchmarks.md, seventh pass).
 *
 * `useLinkedFiberRoots` swaps that set for a linked list whose removals leave nothing behind.
 * Effect only adds to it, deletes from it and iterates it (`Fiber.roots`). The scope is an Effect
 * internal, reached through Effect's registry of global values, so what is found is checked first:
 * if Effect has changed, nothing is swapped and the server is only slower, never wrong.
 */

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
