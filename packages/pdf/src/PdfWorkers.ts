/**
 * Worker threads that render PDFs. Laying out a quote or an invoice with pdfkit is 140–280 ms of
 * JavaScript; on the event loop every other request waited for it. A worker renders it on another
 * core. What that costs: a thread started on the first PDF, with a heap of its own and pdfkit
 * loaded again there (once), and each sheet copied to it (the bytes come back moved, not copied).
 *
 * A worker renders one job after another; the pool has one or two (a core is left for the event
 * loop). A worker that fails or exits fails the jobs it held, each request answers an error, and
 * the next job starts a new worker. An idle worker does not keep the process alive, and `hold`
 * ends them all when the last scope that holds the pool closes (a server's).
 */
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { availableParallelism } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** What a worker entry answers for the job `id`: the PDF's bytes, or why there are none. */
export type Answer =
  | { readonly id: number; readonly bytes: ArrayBuffer }
  | { readonly id: number; readonly error: string }

interface Job {
  readonly done: (bytes: Uint8Array) => void
  readonly fail: (error: Error) => void
}

interface Running {
  readonly worker: Worker
  readonly jobs: Map<number, Job>
}

export interface Pool {
  /** The job's bytes, rendered by a worker of the pool. */
  readonly run: (job: unknown) => Promise<Uint8Array>
  /** Ends every worker; a job still running fails, and a later job starts a worker again. */
  readonly close: () => Promise<void>
}

export const SIZE = Math.max(1, Math.min(2, availableParallelism() - 1))

export const make = (entry: URL, execArgv: ReadonlyArray<string> | undefined, size = SIZE): Pool => {
  const running: Array<Running> = []
  let next = 0

  const drop = (held: Running, error: Error) => {
    const at = running.indexOf(held)
    if (at >= 0) running.splice(at, 1)
    for (const job of held.jobs.values()) job.fail(error)
    held.jobs.clear()
  }

  const start = (): Running => {
    const worker = new Worker(entry, execArgv === undefined ? {} : { execArgv: [...execArgv] })
    const held: Running = { worker, jobs: new Map() }
    worker.unref()
    worker.on("message", (answer: Answer) => {
      const job = held.jobs.get(answer.id)
      if (job === undefined) return
      held.jobs.delete(answer.id)
      if (held.jobs.size === 0) worker.unref()
      if ("bytes" in answer) job.done(new Uint8Array(answer.bytes))
      else job.fail(new Error(`the PDF could not be rendered: ${answer.error}`))
    })
    worker.on("error", (error) => drop(held, new Error(`the PDF renderer failed: ${error.message}`)))
    worker.on("exit", (code) => drop(held, new Error(`the PDF renderer stopped (exit code ${code})`)))
    running.push(held)
    return held
  }

  /** The least busy worker, or a new one while the pool has room and every worker is busy. */
  const pick = (): Running => {
    const idle = running.reduce<Running | undefined>(
      (best, held) => (best === undefined || held.jobs.size < best.jobs.size ? held : best),
      undefined
    )
    return idle === undefined || (idle.jobs.size > 0 && running.length < size) ? start() : idle
  }

  return {
    run: (job) =>
      new Promise<Uint8Array>((done, fail) => {
        const held = pick()
        const id = next++
        held.jobs.set(id, { done, fail })
        held.worker.ref()
        held.worker.postMessage({ id, job })
      }),
    close: async () => {
      const all = running.splice(0)
      await Promise.all(all.map((held) => held.worker.terminate()))
    }
  }
}

/**
 * The worker entry beside this module: `pdfWorker.js` in a build (every build emits it as an entry
 * of its own); in the sources (the tests, `node --import tsx`), `pdfWorker.ts`, imported through
 * tsx with the source condition, as the rest runs. (Node 20 does not apply the hooks of an
 * `--import` in a worker's `execArgv` to its entry, so the worker registers tsx before importing.)
 * In a bundle made elsewhere without the entry there is no pool, and PDFs render on the event loop.
 */
const entry = (() => {
  const source = import.meta.url.endsWith(".ts")
  const url = new URL(source ? "./pdfWorker.ts" : "./pdfWorker.js", import.meta.url)
  if (url.protocol !== "file:" || !existsSync(fileURLToPath(url))) return undefined
  if (!source) return { url, execArgv: undefined }
  // tsx's ES module API, as its exports map names it (its CommonJS build registers a hook it cannot find).
  const manifest = createRequire(import.meta.url).resolve("tsx/package.json")
  const api = JSON.parse(readFileSync(manifest, "utf8")).exports["./esm/api"].import.default as string
  const tsx = pathToFileURL(join(dirname(manifest), api)).href
  const boot = `const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(url.href)})`
  return { url: new URL(`data:text/javascript,${encodeURIComponent(boot)}`), execArgv: ["--conditions=@crm/source"] }
})()

/** The process's PDF workers, started on the first PDF. */
export const pool: Pool | undefined = entry === undefined ? undefined : make(entry.url, entry.execArgv)

let holders = 0

/**
 * Held by a server for as long as it listens: when the last holder's scope closes, the workers end
 * (an idle worker does not keep the process alive either way).
 */
export const hold: Effect.Effect<void, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => {
    holders++
  }),
  () => Effect.suspend(() => (--holders === 0 && pool !== undefined ? Effect.promise(pool.close) : Effect.void))
)
