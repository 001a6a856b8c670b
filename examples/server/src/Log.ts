/**
 * The server's log: one line per event, JSON (`{"time","level","msg",...fields}`) for a collector or
 * a readable line for a terminal, at the level CRM_LOG_LEVEL sets. It is Effect's logger for the
 * workers' events and the start-up and shutdown lines; the request lines (`App`) take a shorter
 * way into the same sink (`RequestLog`), since a trip through the logger cost a request more than
 * the rest of its line.
 *
 * A request writes a line, so a line must cost microseconds: one `JSON.stringify`, and no write
 * of its own. Lines gather in memory and go out in one write every `GATHER_MS` at most (node
 * writes to a pipe or a file synchronously); a warning or an error goes out at once, with whatever
 * was gathered before it, so that it is not lost to a crash. What is gathered is written when the
 * layer closes, before the process exits.
 */
import type { App } from "@crm/http"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

export const LEVELS = ["trace", "debug", "info", "warn", "error", "silent"] as const
export type Level = (typeof LEVELS)[number]
export type Format = "json" | "pretty"

/** Where lines go: the process's stdout, or any writable (a test's). */
export interface Output {
  readonly write: (chunk: string) => unknown
  readonly isTTY?: boolean
}

export interface LogSettings {
  readonly level: Level
  readonly format: Format
  readonly output: Output
  /** Which worker of `crm serve --workers N` this process is: every line then names it (`worker`). */
  readonly worker?: number
}

const EFFECT_LEVEL: Record<Level, LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  silent: LogLevel.None
}

/** CRM_LOG_LEVEL (default info) and CRM_LOG_FORMAT (default pretty on a terminal, JSON otherwise). */
export const config = (output: Output): Config.Config<LogSettings> =>
  Config.all({
    level: Config.literal(...LEVELS)("CRM_LOG_LEVEL").pipe(Config.withDefault("info" as const)),
    format: Config.literal(
      "json",
      "pretty"
    )("CRM_LOG_FORMAT").pipe(Config.withDefault(output.isTTY === true ? ("pretty" as const) : ("json" as const))),
    output: Config.succeed(output)
  })

/**
 * The most a worker writes at once: PIPE_BUF, the largest write to a pipe that another process's
 * cannot cut into (the workers of `crm serve --workers N` share the supervisor's stdout). Counted in
 * UTF-16 units, each at most 3 bytes of UTF-8.
 */
const SHARED_WRITE = Math.floor(4096 / 3)

/** `chunk`, whole lines, in pieces of at most `limit` (a longer line alone). */
const writeInPieces = (output: Output, chunk: string, limit: number) => {
  let from = 0
  while (chunk.length - from > limit) {
    const end = chunk.lastIndexOf("\n", from + limit - 1)
    const cut = end < from ? chunk.indexOf("\n", from + limit) : end
    output.write(chunk.slice(from, cut + 1))
    from = cut + 1
  }
  if (from < chunk.length) output.write(chunk.slice(from))
}

/**
 * The longest a line waits for its write. Written once per turn of the event loop, the request
 * log cost PGlite's server 30-80 µs of CPU a request under load, nearly all of it the write to a
 * pipe, 3-13 % of its throughput (docs/benchmarks.md, "Issue 38, seventh pass"); gathered for this
 * long, about what no log at all costs.
 */
export const GATHER_MS = 20

/**
 * Lines gathered between writes: at most one write per `GATHER_MS`, or per 64 kB; in a worker, in
 * pieces no other process's write can split (`SHARED_WRITE`).
 */
const makeSink = (output: Output, shared: boolean) => {
  let pending = ""
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    if (timer !== undefined) {
      clearTimeout(timer)
      timer = undefined
    }
    if (pending === "") return
    const chunk = pending
    pending = ""
    if (shared && chunk.length > SHARED_WRITE) writeInPieces(output, chunk, SHARED_WRITE)
    else output.write(chunk)
  }
  return {
    flush,
    push: (line: string, urgent: boolean) => {
      pending += `${line}\n`
      if (urgent || pending.length > 65_536) flush()
      // Not unref'd: like the turn's write it replaced, the timer keeps the process for the lines it holds.
      else if (timer === undefined) timer = setTimeout(flush, GATHER_MS)
    }
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

const errorText = (error: Error): string => {
  if (error.message !== "") return error.message
  const tag = (error as { readonly _tag?: unknown })._tag
  return typeof tag === "string" ? tag : error.name
}

/**
 * A log call's parts as one record: strings make `msg`, plain objects give their fields, an error
 * its message (and, at error level, its stack), a cause its rendering.
 */
const recordOf = (options: Logger.Logger.Options<unknown>): Record<string, unknown> => {
  const level = options.logLevel.label.toLowerCase()
  const record: Record<string, unknown> = { time: options.date.toISOString(), level, msg: "" }
  const words: Array<string> = []
  const serious = LogLevel.greaterThanEqual(options.logLevel, LogLevel.Error)
  for (const part of Array.isArray(options.message) ? options.message : [options.message]) {
    if (typeof part === "string") words.push(part)
    else if (isPlainObject(part)) Object.assign(record, part)
    else if (part instanceof Error) {
      record.error = errorText(part)
      if (serious && part.stack !== undefined) record.stack = part.stack
    } else if (Cause.isCause(part)) {
      if (!Cause.isEmpty(part)) record.cause = Cause.pretty(part)
    } else words.push(String(part))
  }
  record.msg = words.join(" ")
  if (!Cause.isEmpty(options.cause)) record.cause = Cause.pretty(options.cause)
  if (HashMap.size(options.annotations) > 0) {
    for (const [key, value] of options.annotations) record[key] = value
  }
  return record
}

// A bigint (an event id) has no JSON form of its own; only a line that holds one pays for the replacer.
const bigintAsNumber = (_key: string, value: unknown) => (typeof value === "bigint" ? Number(value) : value)

const json = (record: Record<string, unknown>): string => {
  try {
    return JSON.stringify(record)
  } catch {
    return JSON.stringify(record, bigintAsNumber)
  }
}

const COLOURS: Record<string, string> = {
  trace: "\x1b[90m",
  debug: "\x1b[36m",
  info: "\x1b[32m",
  warn: "\x1b[33m",
  error: "\x1b[31m",
  fatal: "\x1b[35m"
}

const SIMPLE = /^[^\s"=]+$/

/** `12:00:00.000 INFO  msg key=value ...`: the time of day (UTC), the level, the message, the fields. */
const pretty = (record: Record<string, unknown>, colour: boolean): string => {
  const { time, level, msg, ...fields } = record
  const label = String(level).toUpperCase().padEnd(5)
  let line = `${String(time).slice(11, 23)} ${colour ? `${COLOURS[String(level)] ?? ""}${label}\x1b[0m` : label} ${msg}`
  for (const [key, value] of Object.entries(fields)) {
    const text =
      typeof value === "string"
        ? SIMPLE.test(value)
          ? value
          : JSON.stringify(value)
        : typeof value === "bigint"
          ? String(value)
          : JSON.stringify(value)
    line += ` ${key}=${text}`
  }
  return line
}

type Push = (line: string, urgent: boolean) => void

const render = (settings: LogSettings) => {
  const colour = settings.output.isTTY === true
  const { worker } = settings
  const line = (record: Record<string, unknown>): string =>
    settings.format === "json" ? json(record) : pretty(record, colour)
  if (worker === undefined) return line
  return (record: Record<string, unknown>): string => {
    record.worker = worker
    return line(record)
  }
}

export const make = (settings: LogSettings, push: Push): Logger.Logger<unknown, void> => {
  const line = render(settings)
  return Logger.make((options) =>
    push(line(recordOf(options)), LogLevel.greaterThanEqual(options.logLevel, LogLevel.Warning))
  )
}

/**
 * The request lines (`App.HttpOptions.requestLog`), written beside the logger's: the same sink and
 * form, without a trip through the logger per request. Undefined when the level leaves out info.
 */
export class RequestLog extends Context.Tag("@crm/server/RequestLog")<
  RequestLog,
  ((line: App.RequestLine) => void) | undefined
>() {}

const requestLog = (settings: LogSettings, push: Push): ((line: App.RequestLine) => void) | undefined => {
  if (LogLevel.greaterThan(EFFECT_LEVEL[settings.level], LogLevel.Info)) return undefined
  const line = render(settings)
  return (request) => push(line({ time: new Date().toISOString(), level: "info", msg: "request", ...request }), false)
}

/**
 * The log in place of Effect's default logger, at the settings' level, and the request log beside
 * it; gathered lines are written when it closes.
 */
export const layer = (settings: LogSettings): Layer.Layer<RequestLog> =>
  Layer.unwrapScoped(
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => makeSink(settings.output, settings.worker !== undefined)),
        (sink) => Effect.sync(sink.flush)
      ),
      (sink) =>
        Layer.mergeAll(
          Logger.replace(Logger.defaultLogger, make(settings, sink.push)),
          Logger.minimumLogLevel(EFFECT_LEVEL[settings.level]),
          Layer.succeed(RequestLog, requestLog(settings, sink.push))
        )
    )
  )
