/**
 * `crm serve --workers N` (or CRM_WORKERS=N): N server processes on one port, under a supervisor
 * (node's `cluster`: the supervisor holds the port and hands each new connection to the next
 * worker in turn). The supervisor applies the migrations, forks the workers, replaces one that
 * dies and, on SIGTERM or SIGINT, has each of them shut down as one server does; it serves nothing
 * itself. Each worker is a plain `crm serve`: what several processes share (numbering, stock, the
 * rate budget, webhook and mail leases, key revocation) is kept in the database already.
 */
import cluster, { type Worker } from "node:cluster"
import { availableParallelism } from "node:os"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Storage from "./Storage.js"

/** More is a typo, not a machine: each worker holds up to 10 database connections. */
const MOST = 1024

/** `N` (a whole number from 1 to `MOST`) or `auto`, one worker per core this process may run on. */
export const parseCount = (text: string, cores: number = availableParallelism()): Either.Either<number, string> => {
  const value = text.trim()
  if (value === "auto") return Either.right(Math.max(1, cores))
  return /^[1-9][0-9]*$/.test(value) && Number(value) <= MOST
    ? Either.right(Number(value))
    : Either.left(`workers must be auto or a whole number from 1 to ${MOST}, got "${text}"`)
}

/** CRM_WORKERS; 1 when unset. */
export const WorkersConfig: Config.Config<number> = Config.string("CRM_WORKERS").pipe(
  Config.withDefault("1"),
  Config.mapOrFail((text) =>
    Either.mapLeft(parseCount(text), (message) => ConfigError.InvalidData(["CRM_WORKERS"], message))
  )
)

/**
 * Which worker this process is (1..N), when a supervisor started it: it names the worker in every
 * log line (`Run.ts`), and the first one alone makes the first organisation of an empty store.
 */
export const WorkerConfig: Config.Config<Option.Option<number>> = Config.option(Config.integer("CRM_WORKER"))

/** Whether this process is a worker of a supervisor (which then never supervises in turn). */
export const isWorker = (): boolean => cluster.isWorker

export class WorkersError extends Data.TaggedError("WorkersError")<{ readonly message: string }> {}

const READY = "crm-worker-ready"

/**
 * In a worker: tells the supervisor that the store is open and the services are built, so that a
 * worker that exits before this counts as one that could not start.
 */
export const announceReady = Effect.sync(() => {
  if (cluster.isWorker) process.send?.(READY)
})

/**
 * In a worker: a second SIGINT or SIGTERM is ignored. Ctrl-C in a terminal reaches every process of
 * the group and the supervisor passes it on too, and node's default for a signal nobody listens to
 * any more (the runtime listens for the first one only) would end the worker in the middle of its
 * shutdown. A supervisor that is killed takes its workers with it (node's cluster ends a worker
 * whose supervisor is gone).
 */
export const ignoreRepeatedSignals = Effect.sync(() => {
  if (!cluster.isWorker) return
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => {})
})

/**
 * In a worker, once its command has ended (stopped, or failed at start): the process exits, with
 * the exit code the command set. The channel to the supervisor would keep it running otherwise.
 */
export const leave = Effect.sync(() => {
  if (cluster.isWorker) process.exit()
})

/** The first replacement of a worker waits this long; each one that also dies within `STEADY` twice as long. */
const FIRST_DELAY = Duration.seconds(1)
const LONGEST_DELAY = Duration.seconds(60)
/** A worker that ran this long before it died is replaced after `FIRST_DELAY` again. */
const STEADY = Duration.minutes(1)

interface Slot {
  readonly index: number
  worker: Worker | undefined
  startedAt: number
  ready: boolean
  delay: Duration.Duration
}

type Event =
  | { readonly _tag: "Ready"; readonly slot: Slot; readonly worker: Worker }
  | {
      readonly _tag: "Exited"
      readonly slot: Slot
      readonly worker: Worker
      readonly code: number | null
      readonly signal: string | null
    }

const how = (event: { readonly code: number | null; readonly signal: string | null }) =>
  event.signal === null ? `with code ${event.code}` : `on ${event.signal}`

const refuse = (message: string) => Effect.fail(new WorkersError({ message }))

/**
 * What several processes need: a PostgreSQL server (PGlite is one process's database, memory one
 * process's state) and, for the metrics, a port to count from.
 */
const checkStore = (count: number) =>
  Effect.gen(function* () {
    const storage = yield* Storage.StorageConfig
    const metricsPort = yield* Config.option(Config.integer("CRM_METRICS_PORT"))
    if (Option.isSome(storage.kind) && storage.kind.value === "memory")
      return yield* refuse(
        `${count} workers cannot share the memory store (CRM_STORAGE=memory): each process would hold a store of its own; set DATABASE_URL to a PostgreSQL server, or run one worker`
      )
    if (Option.isNone(storage.databaseUrl))
      return yield* refuse(
        `${count} workers cannot share PGlite (${storage.dataDir}): its data directory is one process's; set DATABASE_URL to a PostgreSQL server, or run one worker`
      )
    if (Option.isSome(metricsPort) && metricsPort.value === 0)
      return yield* refuse(
        "CRM_METRICS_PORT=0 with several workers: worker k serves its metrics on CRM_METRICS_PORT + k - 1, so give a port"
      )
    return { storage, metricsPort }
  })

/**
 * The supervisor: `count` workers (2 or more) running `crm serve`, each with CRM_WORKER set to its
 * number and, with CRM_METRICS_PORT, a metrics port of its own. It ends with its workers' shutdown
 * when interrupted (the runtime does so on SIGINT or SIGTERM), and fails, having stopped the
 * others, when a worker exits before any has started (a wrong DATABASE_URL, a port in use).
 */
export const supervise = (count: number) =>
  Effect.gen(function* () {
    const { storage, metricsPort } = yield* checkStore(count)
    // Once, before any worker: a database that cannot be reached fails here rather than in each.
    yield* Layer.build(Storage.layerFrom(storage)).pipe(Effect.scoped)
    yield* Effect.logInfo(`migrations applied: ${Storage.describe(storage)}; starting ${count} workers`)

    const events = yield* Queue.unbounded<Event>()
    const slots: Array<Slot> = Array.from({ length: count }, (_, i) => ({
      index: i + 1,
      worker: undefined,
      startedAt: 0,
      ready: false,
      delay: FIRST_DELAY
    }))
    let stopping = false
    let started = false

    // A worker runs `crm serve` as the supervisor was started (the same node options and entry), a
    // bare `crm serve`, which starts at once without the command-line parser.
    cluster.setupPrimary({ args: ["serve"] })
    const start = (slot: Slot) =>
      Effect.suspend(() => {
        if (stopping) return Effect.void
        const worker = cluster.fork({
          CRM_WORKER: String(slot.index),
          ...(Option.isSome(metricsPort) ? { CRM_METRICS_PORT: String(metricsPort.value + slot.index - 1) } : {})
        })
        slot.worker = worker
        slot.startedAt = Date.now()
        slot.ready = false
        worker.on("message", (message) => {
          if (message === READY) Queue.unsafeOffer(events, { _tag: "Ready", slot, worker })
        })
        worker.on("exit", (code, signal) => Queue.unsafeOffer(events, { _tag: "Exited", slot, worker, code, signal }))
        return Effect.logInfo(`worker ${slot.index} started`, { worker_pid: worker.process.pid })
      })

    /** Every worker still running asked to shut down, and each one's exit awaited. */
    const stopAll = Effect.gen(function* () {
      stopping = true
      const running = new Set(slots.flatMap((slot) => (slot.worker === undefined ? [] : [slot.worker])))
      if (running.size === 0) return
      yield* Effect.logInfo(`stopping ${running.size} workers`)
      for (const worker of running) worker.process.kill("SIGTERM")
      while (running.size > 0) {
        const event = yield* Queue.take(events)
        if (event._tag !== "Exited" || !running.delete(event.worker)) continue
        event.slot.worker = undefined
        const pid = { worker_pid: event.worker.process.pid }
        yield* event.code === 0
          ? Effect.logInfo(`worker ${event.slot.index} stopped`, pid)
          : Effect.logWarning(`worker ${event.slot.index} stopped ${how(event)}`, pid)
      }
    })

    const handle = (event: Event): Effect.Effect<void, WorkersError, Scope.Scope> => {
      const { slot, worker } = event
      if (slot.worker !== worker) return Effect.void
      if (event._tag === "Ready") {
        slot.ready = true
        started = true
        return Effect.void
      }
      slot.worker = undefined
      const pid = { worker_pid: worker.process.pid }
      if (!slot.ready && !started)
        return Effect.zipRight(
          Effect.logError(
            `worker ${slot.index} exited ${how(event)} before it was ready, and no worker has started`,
            pid
          ),
          refuse(`the workers could not start: worker ${slot.index} exited ${how(event)} (its error is logged above)`)
        )
      const ranFor = Duration.millis(Date.now() - slot.startedAt)
      const delay = Duration.greaterThanOrEqualTo(ranFor, STEADY) ? FIRST_DELAY : slot.delay
      slot.delay = Duration.min(Duration.times(delay, 2), LONGEST_DELAY)
      return Effect.zipRight(
        Effect.logError(
          `worker ${slot.index} exited ${how(event)} unexpectedly; starting another in ${Duration.format(delay)}`,
          pid
        ),
        Effect.asVoid(Effect.forkScoped(Effect.delay(start(slot), delay)))
      )
    }

    yield* Effect.addFinalizer(() => stopAll)
    yield* Effect.forEach(slots, start, { discard: true })
    return yield* Effect.forever(Effect.flatMap(Queue.take(events), handle))
  }).pipe(Effect.scoped)
