/**
 * Readiness while the store opens: the server listens first. Opening the store is most of a start
 * on PGlite (PostgreSQL compiled to WebAssembly, and its data directory) and, on PostgreSQL, a
 * connection and the migrations' check; a probe need not wait for it to learn that the process is
 * up, nor a client for the OpenAPI document.
 *
 * Until the store is open, the routes that need none (`usesStore`: liveness, the OpenAPI document)
 * are answered by the pipeline as ever; readiness answers 503 `service_unavailable` with
 * Retry-After; every other request waits for the store, at most `wait`, and is then served as if it
 * had come after, or answered that 503 if the store is still not open. Once it is, the listener
 * serves the app alone (`Listener.Listening.serve`): nothing here stays on a request's path.
 */
import type { IncomingMessage } from "node:http"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { type HttpOptions, makeApp } from "./App.js"
import { type Answer, errorBody, header, requestIdOf } from "./Edge.js"
import * as Listener from "./Listener.js"
import { usesStore } from "./Route.js"
import { type Mounted, makeRouter } from "./Router.js"
import { readinessRoute } from "./routes/health.js"

type Served<R> = (incoming: IncomingMessage) => Effect.Effect<Answer, never, R>

export interface OpeningOptions extends HttpOptions {
  /** The routes, as the app serves them once the store is open. */
  readonly table: ReadonlyArray<Mounted>
  /** How long a request that needs the store waits for it before its 503. */
  readonly wait: Duration.DurationInput
}

export interface Opening {
  readonly address: { readonly host: string; readonly port: number }
  /**
   * The store is open: `app` answers every request from now on, and those waiting for the store,
   * until the scope closes. The listener stops then, before the services the app runs on close.
   */
  readonly open: <R>(app: Served<R>) => Effect.Effect<void, never, R | Scope.Scope>
}

/** Opening takes a second or two at most: a client told to come back after one rarely hears it twice. */
const RETRY_AFTER_SECONDS = 1

/** The 503 of a request that came before the store was open: readiness's, or a wait's that ran out. */
const stillOpening = (incoming: IncomingMessage): Answer => {
  const requestId = requestIdOf(header(incoming.headers, "x-request-id"))
  return {
    status: 503,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "retry-after": String(RETRY_AFTER_SECONDS),
      "x-request-id": requestId
    },
    body: errorBody(
      "service_unavailable",
      "the server is still opening its database; retry after the Retry-After seconds",
      requestId
    )
  }
}

const pathOf = (target: string) => {
  const query = target.indexOf("?")
  return query === -1 ? target : target.slice(0, query)
}

/** Listens at once (until the scope closes), serving what needs no store until `open`. */
export const listen = (
  options: OpeningOptions,
  listenOptions: Listener.ListenOptions
): Effect.Effect<Opening, never, Scope.Scope> =>
  Effect.gen(function* () {
    const opened = yield* Deferred.make<Served<never>>()
    const route = makeRouter(options.table)
    // Reached only by the routes that need no store, which call no service: no context to run on.
    const withoutStore = makeApp(options.table, options) as Served<never>
    const waiting: Served<never> = (incoming) =>
      Effect.flatMap(
        Effect.timeoutOption(Deferred.await(opened), options.wait),
        Option.match({ onNone: () => Effect.succeed(stillOpening(incoming)), onSome: (app) => app(incoming) })
      )
    const before: Served<never> = (incoming) => {
      const found = route(incoming.method ?? "GET", pathOf(incoming.url ?? "/"))
      if (found._tag === "Found" && found.mounted.route === readinessRoute)
        return Effect.succeed(stillOpening(incoming))
      if (found._tag === "Found" && !usesStore(found.mounted.route)) return withoutStore(incoming)
      // Anything else (a route that needs the store, a page, a method or target not found here) is the app's.
      return waiting(incoming)
    }
    // Closed by `open`'s scope, or by this one's if the store never opens.
    const listenerScope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const listening = yield* Scope.extend(Listener.listen(before, listenOptions), listenerScope)
    return {
      address: listening.address,
      open: <R>(app: Served<R>) =>
        Effect.gen(function* () {
          const context = yield* Effect.context<R>()
          yield* listening.serve(app)
          yield* Deferred.succeed(opened, (incoming) => Effect.provide(app(incoming), context))
          yield* Effect.addFinalizer(() => Scope.close(listenerScope, Exit.void))
          yield* Effect.logInfo("ready: the store is open")
        })
    }
  })
