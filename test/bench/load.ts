/**
 * One measured window: wrk at one or more servers at once, and what each process spent meanwhile.
 * Server CPU is the server process's utime + stime (all threads) over the window, its workers'
 * added (`BENCH_WORKERS`). PostgreSQL CPU is
 * measured twice: for the whole server (every postgres process, reaped backends included) and per
 * application_name (the backends pg_stat_activity lists for "crm" and "crm-baseline", each read
 * from /proc/<pid>/stat at the start, every 250 ms and at the end), which is what splits it between
 * two servers loaded at once.
 */
import type pg from "pg"
import {
  isRunning,
  machineBusyMs,
  nowUs,
  postgresCpuMs,
  procCpuMs,
  procTreeCpuMs,
  procTreeRss,
  type Served,
  selfAndChildrenCpuMs,
  tail
} from "./harness.js"
import type { Window } from "./profile.js"
import { runWrk, type WrkResult } from "./wrk.js"

export interface Target {
  readonly name: string
  readonly served: Served
  /** The application_name its pool connects with (for the per-server PostgreSQL CPU). */
  readonly applicationName: string | undefined
  readonly script: string
  readonly connections?: number
}

export interface TargetFigures {
  readonly result: WrkResult
  readonly serverCpuMs: number
  /** Backends of this server's application_name; NaN without PostgreSQL. */
  readonly pgAppCpuMs: number
  readonly rssMb: number
  readonly hwmMb: number
  readonly window: Window
}

export interface WindowFigures {
  readonly seconds: number
  readonly targets: ReadonlyArray<TargetFigures>
  /** Every postgres process; NaN without PostgreSQL. */
  readonly pgAllCpuMs: number
  /** This process and wrk. */
  readonly loadCpuMs: number
  /** The machine's busy time besides the servers, PostgreSQL and the load. */
  readonly otherCpuMs: number
}

/** ms per request; NaN when none completed (a window too short for the route, reported as a problem). */
export const perRequest = (ms: number, requests: number): number => (requests > 0 ? ms / requests : Number.NaN)

/** CPU per application_name of one database's client backends, sampled while a window runs. */
class BackendCpu {
  private readonly seen = new Map<number, { app: string; first: number; last: number }>()
  private timer: NodeJS.Timeout | undefined
  private chain: Promise<void> = Promise.resolve()

  constructor(
    private readonly client: pg.Client,
    private readonly database: string
  ) {}

  private sample(initial: boolean): Promise<void> {
    this.chain = this.chain.then(async () => {
      const { rows } = await this.client.query<{ pid: number; app: string }>(
        `SELECT pid, application_name AS app FROM pg_stat_activity
         WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
        [this.database]
      )
      for (const { pid, app } of rows) {
        const cpu = procCpuMs(pid)
        if (Number.isNaN(cpu)) continue
        const known = this.seen.get(pid)
        // A backend that appears during the window is charged from zero: it was born in it.
        if (known === undefined) this.seen.set(pid, { app, first: initial ? cpu : 0, last: cpu })
        else known.last = cpu
      }
      // Backends that exited since the last sample keep their last reading (at most 250 ms lost).
      for (const [pid, entry] of this.seen) {
        const cpu = procCpuMs(pid)
        if (!Number.isNaN(cpu)) entry.last = cpu
      }
    })
    return this.chain
  }

  async start() {
    await this.sample(true)
    this.timer = setInterval(() => void this.sample(false).catch(() => undefined), 250)
  }

  async stop(): Promise<Map<string, number>> {
    clearInterval(this.timer)
    await this.sample(false)
    const byApp = new Map<string, number>()
    for (const { app, first, last } of this.seen.values()) byApp.set(app, (byApp.get(app) ?? 0) + (last - first))
    return byApp
  }
}

/** wrk at every target at once, for `seconds`; `pg` (the bench database) enables the PostgreSQL figures. */
export const measure = async (options: {
  readonly dir: string
  readonly label: string
  readonly targets: ReadonlyArray<Target>
  readonly seconds: number
  readonly pg: { readonly client: pg.Client; readonly database: string } | undefined
}): Promise<WindowFigures> => {
  const { targets } = options
  const backends = options.pg === undefined ? undefined : new BackendCpu(options.pg.client, options.pg.database)
  await backends?.start()
  const server0 = targets.map((t) => procTreeCpuMs(t.served.child.proc.pid!))
  const pg0 = options.pg === undefined ? Number.NaN : postgresCpuMs()
  const machine0 = machineBusyMs()
  const load0 = selfAndChildrenCpuMs()
  const from = nowUs()
  const results = await Promise.all(
    targets.map((t) =>
      runWrk({
        base: t.served.base,
        dir: options.dir,
        name: `${options.label}-${t.name}`,
        script: t.script,
        seconds: options.seconds,
        ...(t.connections === undefined ? {} : { connections: t.connections })
      })
    )
  )
  const to = nowUs()
  const server1 = targets.map((t) => procTreeCpuMs(t.served.child.proc.pid!))
  const pg1 = options.pg === undefined ? Number.NaN : postgresCpuMs()
  const machine1 = machineBusyMs()
  const load1 = selfAndChildrenCpuMs()
  const byApp = backends === undefined ? undefined : await backends.stop()
  for (const t of targets) {
    if (!isRunning(t.served.child)) {
      throw new Error(
        `${t.served.child.name} died under load (exit ${t.served.child.proc.exitCode ?? t.served.child.proc.signalCode}):\n${tail(t.served.child)}`
      )
    }
  }
  const serverCpu = targets.map((_, i) => server1[i]! - server0[i]!)
  const pgAll = pg1 - pg0
  const load = load1 - load0
  const figures: Array<TargetFigures> = targets.map((t, i) => {
    const rss = procTreeRss(t.served.child.proc.pid!)
    return {
      result: results[i]!,
      serverCpuMs: serverCpu[i]!,
      pgAppCpuMs:
        byApp === undefined || t.applicationName === undefined ? Number.NaN : (byApp.get(t.applicationName) ?? 0),
      rssMb: rss.rssMb,
      hwmMb: rss.hwmMb,
      window: { from, to, requests: results[i]!.requests, cpuMs: serverCpu[i]! }
    }
  })
  const busy = machine1 - machine0
  const accounted = serverCpu.reduce((a, b) => a + b, 0) + (Number.isNaN(pgAll) ? 0 : pgAll) + load
  return {
    seconds: (to - from) / 1e6,
    targets: figures,
    pgAllCpuMs: pgAll,
    loadCpuMs: load,
    otherCpuMs: Math.max(0, busy - accounted)
  }
}
