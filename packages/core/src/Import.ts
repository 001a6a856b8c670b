/**
 * The admin import: an organisation's existing data as JSON lines, one typed record a line, run
 * through the kernel's own operations (so their validation, rules and events apply) in one unit
 * of work: the first refused line rolls back every line before it, and the report names it.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { z } from "zod"
import { Access } from "./Access.js"
import { type DomainError, ImportFailed, type NotFound, type StorageError, ValidationFailed } from "./Errors.js"
import { type ImportServices, type ImportType, isImportType, KINDS } from "./Import/ImportKinds.js"
import { envelopeOf, MAX_LINES, resolveRefs, type SourceLine, splitLines } from "./Import/ImportLines.js"
import { operation } from "./internal/operation.js"
import type { Actor } from "./Resource.js"
import type { Organisation } from "./Settings/SettingsSchemas.js"
import { Transaction } from "./Transaction.js"
import { parse, refuseUnstorable } from "./Validation.js"

export * from "./Import/ImportKinds.js"
export * as ImportLines from "./Import/ImportLines.js"
export { MAX_LINES, REF_PREFIX } from "./Import/ImportLines.js"

export const ImportedItem = z.object({
  line: z.number().int().describe("1-based line number in the body"),
  type: z.string(),
  ref: z.string().optional().describe("the line's `ref`, when it had one"),
  id: z.uuid().describe("the id of the record the line created")
})

export const ImportReport = z.object({
  imported: z.number().int().describe("how many lines were imported (every non-blank line)"),
  by_type: z.record(z.string(), z.number().int()).describe("imported lines per type"),
  items: z.array(ImportedItem).describe("one entry per imported line, in order")
})
export type ImportReport = z.infer<typeof ImportReport>

/** The `detail` of `import_failed`: the first refused line and the kernel's own error for it. */
export const ImportFailure = z.object({
  line: z.number().int(),
  type: z.string().nullable().describe("the line's type, null when it could not be read"),
  error: z.string().describe("the kernel's error code, e.g. validation_failed, email_already_exists, invalid_json"),
  detail: z.unknown().describe("that error's detail")
})

export class Import extends Context.Tag("@crm/core/Import")<
  Import,
  {
    /**
     * Imports the JSON lines `text` into the organisation: every line or none. Refusals are
     * `ImportFailed`; only a missing organisation (`NotFound`) or storage failures are not.
     */
    readonly run: (
      organisationId: string,
      text: string,
      actor: Actor
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

export const make = Effect.gen(function* () {
  const tx = yield* Transaction
  const access = yield* Access
  const services = yield* Effect.context<ImportServices>()

  const importLine = (
    organisation: Organisation,
    source: SourceLine,
    ids: Map<string, string>,
    actor: Actor
  ): Effect.Effect<
    { readonly type: ImportType; readonly ref: string | undefined; readonly id: string },
    ImportFailed | StorageError,
    ImportServices
  > =>
    Effect.gen(function* () {
      let value: unknown
      try {
        value = JSON.parse(source.text)
      } catch (error) {
        return yield* failed(source, null, "invalid_json", `the line is not valid JSON: ${(error as Error).message}`)
      }
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
      yield* Either.mapLeft(refuseUnstorable(envelope.fields), refused(type))
      const fields = yield* Either.mapLeft(resolveRefs(envelope.fields, ids), refused(type))
      const kind = KINDS[type]
      const input = yield* Either.mapLeft(parse(kind.schema, ownTypeIn(kind.ownType, fields)), (error) =>
        refused(type)(ownTypeOut(kind.ownType, error))
      )
      // Each kind's `run` is typed against its own schema; `input` was just parsed with that schema.
      const run = kind.run as (
        o: Organisation,
        i: unknown,
        a: Actor
      ) => Effect.Effect<string, DomainError | StorageError, ImportServices>
      const id = yield* run(organisation, input, actor).pipe(
        Effect.mapError((error): ImportFailed | StorageError => (isStorageError(error) ? error : refused(type)(error)))
      )
      if (ref !== undefined) ids.set(ref, id)
      return { type, ref, id }
    })

  return Import.of({
    run: operation("Import.run")(function* (organisationId, text, actor) {
      const organisation = yield* access.getOrganisation(organisationId)
      const lines = splitLines(text)
      if (lines.length > MAX_LINES) {
        return yield* failed(lines[MAX_LINES]!, null, "too_many_lines", `at most ${MAX_LINES} lines per batch`)
      }
      const ids = new Map<string, string>()
      const imported = yield* tx
        .run(
          Effect.forEach(lines, (source) =>
            Effect.map(importLine(organisation, source, ids, actor), (item) => ({ line: source.line, ...item }))
          )
        )
        .pipe(Effect.provide(services))
      const by_type: Record<string, number> = {}
      for (const item of imported) by_type[item.type] = (by_type[item.type] ?? 0) + 1
      return {
        imported: imported.length,
        by_type,
        items: imported.map(({ line, type, ref, id }) => ({ line, type, ...(ref === undefined ? {} : { ref }), id }))
      }
    })
  })
})

export const layer = Layer.effect(Import, make)
