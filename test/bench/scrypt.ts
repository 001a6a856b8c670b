/**
 * `node --conditions=@crm/source --import tsx test/bench/scrypt.ts`: what one password check costs
 * (issue 36 asks for at most ~100 ms of CPU, off the event loop). A check is the server's own
 * `ScryptPasswordHasher.verify` (@crm/http) at the cost it runs with (N=2^15, r=8, p=1): one scrypt
 * derivation on node's thread pool and a constant-time comparison.
 *
 * Two runs of BENCH_SCRYPT_CHECKS checks (default 40) of a wrong password: one at a time, then four
 * at a time (libuv's pool has four threads: what a burst of sign-ins gets). Each prints the CPU per
 * check (user + system of the whole process, the pool's threads included, from `process.cpuUsage`),
 * the wall time per check, and how late the event loop's timers ran meanwhile
 * (`monitorEventLoopDelay`, 1 ms resolution: idle, it reads about 1-2 ms): the derivation must not
 * hold the loop. The figures and the machine they were
 * taken on: docs/people.md.
 */
import { cpus } from "node:os"
import { monitorEventLoopDelay, performance } from "node:perf_hooks"
import * as Effect from "effect/Effect"
import { DEFAULT_COST, decode, make } from "../../packages/http/src/ScryptPasswordHasher.js"
import { envNumber } from "./harness.js"

const CHECKS = envNumber("BENCH_SCRYPT_CHECKS", 40)
const hasher = make({ cost: DEFAULT_COST })
const stored = await Effect.runPromise(hasher.hash("correct horse battery staple"))

const run = async (label: string, concurrency: number) => {
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  const cpu = process.cpuUsage()
  const start = performance.now()
  let next = 0
  const worker = async () => {
    while (next < CHECKS) {
      next++
      if (await Effect.runPromise(hasher.verify("a wrong password, as most are under attack", stored))) {
        throw new Error("a wrong password matched")
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const wall = performance.now() - start
  const used = process.cpuUsage(cpu)
  delay.disable()
  const cpuMs = (used.user + used.system) / 1000 / CHECKS
  console.log(
    `${label}: ${CHECKS} checks, CPU ${cpuMs.toFixed(1)} ms per check, wall ${(wall / CHECKS).toFixed(1)} ms per check ` +
      `(${((CHECKS / wall) * 1000).toFixed(1)} checks/s), event loop delay p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms, ` +
      `max ${(delay.max / 1e6).toFixed(1)} ms`
  )
}

const { N, r, p } = decode(stored)!.parameters
console.log(`scrypt N=${N} r=${r} p=${p} on ${cpus().length} × ${cpus()[0]?.model ?? "?"}, node ${process.version}`)
await run("one at a time", 1)
await run("four at a time", 4)
