/**
 * The admin import: an organisation's existing data as JSON lines, one typed record a line, run
 * through the kernel's own operations (so their validation, rules and events apply) in one unit
 * of work: the first refused line rolls back every line before it, and the report names it.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { z } from "zod"
import { Access } from "./Access.js"
import { lockKeys, Outcome } from "./Batch.js"
import { type DomainError, ImportFailed, type NotFound, type StorageError, ValidationFailed } from "./Errors.js"
import { type ImportKind, type ImportServices, type ImportType, isImportType, KINDS } from "./Import/ImportKinds.js"
import { envelopeOf, MAX_LINES, resolveRefs, type SourceLine, splitLines } from "./Import/ImportLines.js"
import { operation } from "./internal/operation.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import type { Actor } from "./Resource.js"
import { Transaction } from "./Transaction.js"
import { parse, parseJson, refuseUnsafe } from "./Validation.js"

export * from "./Import/ImportKinds.js"
export * as ImportLines from "./Import/ImportLines.js"
export { MAX_LINES, REF_PREFIX } from "./Import/ImportLines.js"

export const ImportedItem = z.object({
  line: z.number().int().describe("1-based line number in the body"),
  type: z.string(),
  ref: z.string().optional().describe("the line's `ref`, when it had one"),
  id: z.uuid().describe("the id of the record the line created or (upsert mode) changed or found unchanged"),
  outcome: Outcome.describe("created; in upsert mode also updated or unchanged")
})

/** The `detail` of `import_failed`: the first refused line and the kernel's own error for it. */
export const ImportFailure = z.object({
  line: z.number().int(),
  type: z.string().nullable().describe("the line's type, null when it could not be read"),
  error: z.string().describe("the kernel's error code, e.g. validation_failed, email_already_exists, invalid_json"),
  detail: z.unknown().describe("that error's detail")
})

export const ImportReport = z.object({
  dry_run: z.boolean().describe("true: nothing was written; the report says what the import would do"),
  imported: z
    .number()
    .int()
    .describe("how many lines were imported (every non-blank line), or on a dry run would be before any refusal"),
  by_type: z.record(z.string(), z.number().int()).describe("imported lines per type"),
  outcomes: z
    .object({ created: z.number().int(), updated: z.number().int(), unchanged: z.number().int() })
    .describe("imported lines by what they did"),
  items: z.array(ImportedItem).describe("one entry per imported line, in order"),
  refused: ImportFailure.nullable().describe(
    "dry run only: the first line the import would refuse (a real run answers 422 import_failed instead), else null"
  )
})
export type ImportReport = z.infer<typeof ImportReport>

/** How an import runs: `mode` and `dry_run` as the admin API's query takes them. */
export const ImportQuery = z.object({
  mode: z
    .enum(["create", "upsert"])
    .optional()
    .describe(
      "create (default): every line creates; upsert: a contact line with email, a company line with domain and a product line (by sku) create or change the record that key names, as the PUT upserts do"
    ),
  dry_run: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional()
    .describe("true: run every line, report, then write nothing (the report names the first refused line)")
})
export type ImportQuery = z.output<typeof ImportQuery>

export class Import extends Context.Tag("@crm/core/Import")<
  Import,
  {
    /**
     * Imports the JSON lines `text` into the organisation: every line or none. Refusals are
     * `ImportFailed`; only a missing organisation (`NotFound`) or storage failures are not.
     */
    readonly run: (
      organisationId: OrganisationId,
      text: string,
      actor: Actor,
      options?: ImportQuery
    ) => Effect.Effect<ImportReport, ImportFailed | NotFound | StorageError>
  }
>() {}

const failed = (source: { readonly line: number }, type: string | null, error: string, detail: unknown) =>
  new ImportFailed({ detail: { line: source.line, type, error, detail } })

/** The operation's own `type` field, carried on the line under `ownType`, moved into place. */
const ownTypeIn = (ownType: string | undefined, fields: Record<string, unknown>): Record<string, unknown> => {
  if (ownType === undefined) return fields
  const { [ownType]: own, ...rest } = fields
  return own === undefined ? rest : { ...rest, type: own }
}

/** Issues about the operation's `type` named as the line carries it. */
const ownTypeOut = (ownType: string | undefined, error: ValidationFailed): ValidationFailed =>
  ownType === undefined
    ? error
    : new ValidationFailed({
        detail: error.detail.map((issue) =>
          issue.path === "type" || issue.path.startsWith("type.")
            ? { ...issue, path: ownType + issue.path.slice("type".length) }
            : issue
        )
      })

const isStorageError = (error: DomainError | StorageError): error is StorageError => error._tag === "StorageError"

/** What ends a dry run's unit of work (and so rolls it back) once every line has run. */
class DryRunEnd extends Data.TaggedError("DryRunEnd") {}

/** The upsert a line of an upsert run goes through: its kind has one and the line carries the key. */
const keyedUpsert = (kind: ImportKind<z.ZodType, ImportServices>, fields: Readonly<Record<string, unknown>>) =>
  kind.upsert !== undefined && typeof fields[kind.upsert.field] === "string" ? kind.upsert : undefined

export const make = Effect.gen(function* () {
  const tx = yield* Transaction
  const access = yield* Access
  const services = yield* Effect.context<ImportServices>()

  const importLine = (
    organisation: Organisation,
    source: SourceLine,
    ids: Map<string, string>,
    actor: Actor,
    upserting: boolean
  ): Effect.Effect<
    { readonly type: ImportType; readonly ref: string | undefined; readonly id: string; readonly outcome: Outcome },
    ImportFailed | StorageError,
    ImportServices
  > =>
    Effect.gen(function* () {
      const parsed = parseJson(source.text)
      if (Either.isLeft(parsed)) {
        return yield* parsed.left instanceof SyntaxError
          ? failed(source, null, "invalid_json", `the line is not valid JSON: ${parsed.left.message}`)
          : failed(source, null, parsed.left.code, parsed.left.detail)
      }
      const value = parsed.right
      const refused = (type: string | null) => (error: DomainError) => failed(source, type, error.code, error.detail)
      const envelope = yield* Either.mapLeft(envelopeOf(value), refused(null))
      const { type, ref } = envelope
      if (!isImportType(type)) {
        return yield* failed(source, type, "validation_failed", [
          {
            path: "type",
            message: `unknown type ${type}; one of ${Object.keys(KINDS).join(", ")}`,
            code: "unknown_type"
          }
        ])
      }
      if (ref !== undefined && ids.has(ref)) {
        return yield* failed(source, type, "validation_failed", [
          { path: "ref", message: `ref ${ref} is already used by an earlier line`, code: "duplicate_ref" }
        ])
      }
      yield* Either.mapLeft(refuseUnsafe(envelope.fields), refused(type))
      const fields = yield* Either.mapLeft(resolveRefs(envelope.fields, ids), refused(type))
      const kind = KINDS[type]
      const refusal = (error: DomainError | StorageError): ImportFailed | StorageError =>
        isStorageError(error) ? error : refused(type)(error)
      const upsert = upserting ? keyedUpsert(kind, fields) : undefined
      if (upsert !== undefined) {
        const input = yield* Either.mapLeft(parse(upsert.schema, fields), refused(type))
        const done = yield* Effect.mapError(upsert.run(organisation, input, actor), refusal)
        if (ref !== undefined) ids.set(ref, done.id)
        return { type, ref, id: done.id, outcome: done.outcome }
      }
      const input = yield* Either.mapLeft(parse(kind.schema, ownTypeIn(kind.ownType, fields)), (error) =>
        refused(type)(ownTypeOut(kind.ownType, error))
      )
      // Each kind's `run` is typed against its own schema; `input` was just parsed with that schema.
      const run = kind.run as (
        o: Organisation,
        i: unknown,
        a: Actor
      ) => Effect.Effect<string, DomainError | StorageError, ImportServices>
      const id = yield* Effect.mapError(run(organisation, input, actor), refusal)
      if (ref !== undefined) ids.set(ref, id)
      return { type, ref, id, outcome: "created" as const }
    })

  /**
   * The key locks of an upsert run's lines, taken before any line runs (see `Batch.upsertAll`):
   * read from each line as sent; a line that cannot be read takes none and is refused when it runs.
   */
  const lockLines = (organisationId: OrganisationId, lines: ReadonlyArray<SourceLine>) =>
    Effect.gen(function* () {
      const names: Array<string> = []
      for (const source of lines) {
        const value = parseJson(source.text)
        if (Either.isLeft(value)) continue
        const envelope = envelopeOf(value.right)
        if (Either.isLeft(envelope) || !isImportType(envelope.right.type)) continue
        const upsert = keyedUpsert(KINDS[envelope.right.type], envelope.right.fields)
        if (upsert !== undefined) names.push(yield* upsert.lockKey(envelope.right.fields[upsert.field] as string))
      }
      yield* lockKeys(tx, organisationId, names)
    })

  return Import.of({
    run: operation("Import.run")(function* (organisationId, text, actor, options = {}) {
      const organisation = yield* access.getOrganisation(organisationId)
      const lines = splitLines(text)
      if (lines.length > MAX_LINES) {
        return yield* failed(lines[MAX_LINES]!, null, "too_many_lines", `at most ${MAX_LINES} lines per batch`)
      }
      const upserting = options.mode === "upsert"
      const dryRun = options.dry_run === true
      const ids = new Map<string, string>()
      // Filled as lines succeed, so that a dry run can report the lines before its refusal.
      const imported: Array<ImportReport["items"][number]> = []
      const work = Effect.zipRight(
        upserting ? lockLines(organisation.id, lines) : Effect.void,
        Effect.forEach(
          lines,
          (source) =>
            Effect.map(importLine(organisation, source, ids, actor, upserting), ({ type, ref, id, outcome }) => {
              imported.push({ line: source.line, type, ...(ref === undefined ? {} : { ref }), id, outcome })
            }),
          { discard: true }
        )
      )
      type Refusal = z.infer<typeof ImportFailure>
      const refused: Refusal | null = dryRun
        ? // A dry run ends its unit of work by failing, so that everything it wrote rolls back.
          yield* tx.run(Effect.zipRight(work, Effect.fail(new DryRunEnd()))).pipe(
            Effect.catchTags({
              DryRunEnd: () => Effect.succeed(null),
              ImportFailed: (error) => Effect.succeed(error.detail as Refusal)
            }),
            Effect.provide(services)
          )
        : yield* tx.run(work).pipe(Effect.as(null), Effect.provide(services))
      const by_type: Record<string, number> = {}
      const outcomes = { created: 0, updated: 0, unchanged: 0 }
      for (const item of imported) {
        by_type[item.type] = (by_type[item.type] ?? 0) + 1
        outcomes[item.outcome]++
      }
      return { dry_run: dryRun, imported: imported.length, by_type, outcomes, items: imported, refused }
    })
  })
})

export const layer = Layer.effect(Import, make)
