/**
 * An organisation carried out whole and back: everything it owns as JSON lines (a header, one line
 * per stored row, an end line), and such a file read into the store again with every id, number
 * and total as it was, in one unit of work. The rows are the store's own (see `TransferStore`);
 * this service writes and checks the frame around them and splits the bytes into lines.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import { z } from "zod"
import { AccessRepository } from "./Access/AccessRepository.js"
import { ImportFailed, NotFound, type OrganisationExists, type StorageError } from "./Errors.js"
import { operation } from "./internal/operation.js"
import { OrganisationId } from "./Organisation.js"
import { Transaction } from "./Transaction.js"
import { type Emit, type ItemLine, TransferStore } from "./Transfer/TransferStore.js"
import { parseJson, refuseUnsafe } from "./Validation.js"
import { Timestamp } from "./Wire.js"

export * from "./Transfer/TransferStore.js"

export const FORMAT = "crm-organisation-export"
export const VERSION = 1
/**
 * The longest line an import reads (a settings document, an invoice with many lines, an event):
 * what bounds the memory one line of a file can take while it is split and parsed.
 */
export const MAX_LINE_BYTES = 8 * 1024 * 1024

export const Header = z
  .object({
    format: z.literal(FORMAT),
    version: z.literal(VERSION),
    store: z.string().describe("the kind of store whose rows follow: postgres (PGlite too) or memory"),
    schema: z.number().int().describe("the version of those rows (PostgreSQL: the last migration applied)"),
    organisation_id: OrganisationId,
    exported_at: Timestamp,
    secrets: z.boolean().describe("whether hooks' signing secrets are in the file (else null)")
  })
  .describe("the first line of an export")
export type Header = z.infer<typeof Header>

const End = z.object({ type: z.literal("end"), items: z.number().int().nonnegative() })

export const ExportQuery = z.object({
  include_secrets: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional()
    .describe(
      "true: hooks' signing secrets are written as they are; otherwise null, and an import gives each hook a new one"
    )
})
export type ExportQuery = z.output<typeof ExportQuery>

export const ImportSummary = z.object({
  organisation_id: OrganisationId,
  items: z.number().int().describe("lines imported between the header and the end line"),
  by_type: z.record(z.string(), z.number().int()).describe("imported lines per type")
})
export type ImportSummary = z.infer<typeof ImportSummary>

export class Transfer extends Context.Tag("@crm/core/Transfer")<
  Transfer,
  {
    /** The organisation's header, or `NotFound`: what a transport checks before it starts to stream. */
    readonly header: (
      organisationId: OrganisationId,
      query: ExportQuery
    ) => Effect.Effect<Header, NotFound | StorageError>
    /** Writes the header, every item and the end line through `emit`, a page at a time. */
    readonly exportTo: (header: Header, emit: Emit) => Effect.Effect<void, NotFound | StorageError>
    /**
     * Reads a file (its bytes as they arrive) into the store, all or nothing. A line that cannot be
     * read or stored is `ImportFailed` naming its number; so is a file that ends before its end line.
     */
    readonly importFrom: <E>(
      bytes: Stream.Stream<Uint8Array, E>
    ) => Effect.Effect<ImportSummary, ImportFailed | OrganisationExists | StorageError | E>
  }
>() {}

/** `detail` as the NDJSON import's `import_failed` has it: `{line, type, error, detail}`. */
export const refusal = (line: number, type: string | null, error: string, detail: unknown): ImportFailed =>
  new ImportFailed({ detail: { line, type, error, detail } })

interface NumberedLine {
  readonly line: number
  readonly text: string
}

const fromEither = <A, E>(either: Either.Either<A, E>): Effect.Effect<A, E> =>
  Either.isLeft(either) ? Effect.fail(either.left) : Effect.succeed(either.right)

/**
 * Lines of UTF-8 bytes, numbered from 1, each at most `MAX_LINE_BYTES`: a longer one fails
 * `ImportFailed` before it is held whole. `\r\n` ends a line as `\n` does.
 */
export const linesOf = <E>(bytes: Stream.Stream<Uint8Array, E>): Stream.Stream<NumberedLine, E | ImportFailed> =>
  Stream.suspend(() => {
    const decoder = new TextDecoder("utf-8")
    let pending = ""
    let line = 0
    const split = (text: string, final: boolean): Either.Either<Array<NumberedLine>, ImportFailed> => {
      pending += text
      const out: Array<NumberedLine> = []
      let start = 0
      for (let end = pending.indexOf("\n"); end !== -1; end = pending.indexOf("\n", start)) {
        line++
        const raw = pending.slice(start, end)
        out.push({ line, text: raw.endsWith("\r") ? raw.slice(0, -1) : raw })
        start = end + 1
      }
      pending = pending.slice(start)
      // Characters, not bytes: a UTF-8 byte is at most one character, so this bound is never tighter.
      if (pending.length > MAX_LINE_BYTES) {
        return Either.left(refusal(line + 1, null, "line_too_long", `a line may be at most ${MAX_LINE_BYTES} bytes`))
      }
      if (final && pending.length > 0) out.push({ line: ++line, text: pending })
      return Either.right(out)
    }
    return Stream.concat(
      Stream.mapEffect(bytes, (chunk) => fromEither(split(decoder.decode(chunk, { stream: true }), false))),
      Stream.fromEffect(Effect.suspend(() => fromEither(split(decoder.decode(), true))))
    ).pipe(Stream.flattenIterables)
  })

const objectOf = (source: NumberedLine): Either.Either<Record<string, unknown>, ImportFailed> => {
  const parsed = parseJson(source.text)
  if (Either.isLeft(parsed)) {
    const error = parsed.left
    return error instanceof SyntaxError
      ? Either.left(refusal(source.line, null, "invalid_json", error.message))
      : Either.left(refusal(source.line, null, error.code, error.detail))
  }
  const value = parsed.right
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return Either.left(refusal(source.line, null, "invalid_line", "each line is one JSON object"))
  }
  const unsafe = refuseUnsafe(value)
  if (Either.isLeft(unsafe)) return Either.left(refusal(source.line, null, unsafe.left.code, unsafe.left.detail))
  return Either.right(value as Record<string, unknown>)
}

export const make = Effect.gen(function* () {
  const store = yield* TransferStore
  const organisations = yield* AccessRepository
  const tx = yield* Transaction

  const readHeader = (source: NumberedLine): Either.Either<Header, ImportFailed> =>
    Either.flatMap(objectOf(source), (value) => {
      const header = Header.safeParse(value)
      if (!header.success) {
        return Either.left(
          refusal(source.line, null, "invalid_header", `the first line is not a ${FORMAT} version ${VERSION} header`)
        )
      }
      if (header.data.store !== store.kind || header.data.schema !== store.schema) {
        return Either.left(
          refusal(
            source.line,
            null,
            "other_store",
            `the file holds rows of a ${header.data.store} store at schema ${header.data.schema}; this store is ${store.kind} at schema ${store.schema}`
          )
        )
      }
      return Either.right(header.data)
    })

  /** The lines after the header as the store takes them; `state` learns the count and the end line. */
  const itemsOf = <E>(
    rest: Stream.Stream<NumberedLine, E | ImportFailed>,
    state: { items: number; last: number; ended: boolean; readonly byType: Record<string, number> }
  ): Stream.Stream<ItemLine, E | ImportFailed> =>
    rest.pipe(
      Stream.mapEffect((source): Effect.Effect<Option.Option<ItemLine>, ImportFailed> => {
        state.last = source.line
        if (state.ended) return Effect.fail(refusal(source.line, null, "after_end", "nothing may follow the end line"))
        return Effect.flatMap(fromEither(objectOf(source)), (value) => {
          const type = value.type
          if (typeof type !== "string") {
            return Effect.fail(refusal(source.line, null, "invalid_line", "each line has a string type"))
          }
          if (type === "end") {
            const end = End.safeParse(value)
            if (!end.success || end.data.items !== state.items) {
              return Effect.fail(
                refusal(source.line, type, "invalid_end", `the end line must count the ${state.items} lines before it`)
              )
            }
            state.ended = true
            return Effect.succeedNone
          }
          state.items++
          state.byType[type] = (state.byType[type] ?? 0) + 1
          return Effect.succeedSome({ line: source.line, type, value, text: source.text })
        })
      }),
      Stream.filterMap((item) => item)
    )

  return Transfer.of({
    header: operation("Transfer.header")(function* (organisationId, query) {
      // The store reads the organisation again in its own consistent view; this read answers a
      // missing one with 404 before anything is streamed.
      const found = yield* organisations.getOrganisation(organisationId)
      if (Option.isNone(found)) return yield* new NotFound({ detail: "no such organisation" })
      return {
        format: FORMAT,
        version: VERSION,
        store: store.kind,
        schema: store.schema,
        organisation_id: organisationId,
        exported_at: new Date().toISOString(),
        secrets: query.include_secrets === true
      } satisfies Header
    }),

    exportTo: operation("Transfer.exportTo")(function* (header, emit) {
      let items = 0
      yield* emit([JSON.stringify(header)])
      yield* store.exportItems(header.organisation_id, { includeSecrets: header.secrets }, (lines) => {
        items += lines.length
        return emit(lines)
      })
      yield* emit([JSON.stringify({ type: "end", items })])
    }),

    importFrom: <E>(bytes: Stream.Stream<Uint8Array, E>) =>
      Effect.scoped(
        Effect.gen(function* () {
          const lines = linesOf(bytes).pipe(Stream.filter((source) => source.text.trim().length > 0))
          const [first, rest] = yield* Stream.peel(lines, Sink.head())
          if (Option.isNone(first)) return yield* refusal(1, null, "invalid_header", "the file is empty")
          const header = yield* fromEither(readHeader(first.value))
          const state = { items: 0, last: first.value.line, ended: false, byType: {} as Record<string, number> }
          yield* tx.run(
            Effect.zipRight(
              store.importItems(header.organisation_id, itemsOf(rest, state)),
              // Inside the unit: a file cut short leaves nothing behind.
              Effect.suspend(() =>
                state.ended
                  ? Effect.void
                  : Effect.fail(refusal(state.last + 1, null, "missing_end", "the file ends before its end line"))
              )
            )
          )
          return { organisation_id: header.organisation_id, items: state.items, by_type: state.byType }
        })
      )
  })
})

export const layer = Layer.effect(Transfer, make)
