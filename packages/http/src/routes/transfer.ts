/**
 * `GET /admin/v1/organisations/{id}/export` and `POST /admin/v1/organisations/import`: an
 * organisation carried out whole as JSON lines and read back (the core's `Transfer`). The export is
 * written as the store reads it, a page at a time, at the pace the client reads; the import reads
 * the body as it arrives.
 */
import { Organisation, Transfer } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Runtime from "effect/Runtime"
import type * as Stream from "effect/Stream"
import { z } from "zod"
import type { Area } from "../Area.js"
import { MAX_STREAMED_BODY_BYTES } from "../Edge.js"
import { created, type HttpFailure } from "../Reply.js"
import { admin, route } from "../Route.js"

const NDJSON = "application/x-ndjson"
/** What the client may leave unread before the export waits for it. */
const BUFFERED_BYTES = 256 * 1024

/**
 * A web stream of what `produce` emits, one line per item; `produce` runs only while the reader keeps
 * up, and a reader that goes away interrupts it. A failure after the first bytes can only cut the
 * body short: the file then has no end line, which an import refuses.
 */
const linesStream = (
  runtime: Runtime.Runtime<never>,
  produce: (emit: Transfer.Emit) => Effect.Effect<void, unknown>
): ReadableStream<Uint8Array> => {
  const encoder = new TextEncoder()
  let fiber: Fiber.RuntimeFiber<void, unknown> | undefined
  let wake: (() => void) | undefined
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const emit: Transfer.Emit = (lines) =>
          Effect.async<void>((resume) => {
            controller.enqueue(encoder.encode(`${lines.join("\n")}\n`))
            if ((controller.desiredSize ?? 0) > 0) resume(Effect.void)
            else wake = () => resume(Effect.void)
          })
        fiber = Runtime.runFork(runtime)(
          Effect.tapErrorCause(produce(emit), (cause) => Effect.logError("organisation export failed", cause))
        )
        fiber.addObserver((exit) => {
          if (Exit.isSuccess(exit)) controller.close()
          else if (!Exit.isInterrupted(exit)) controller.error(new Error("the export failed"))
        })
      },
      pull() {
        const resume = wake
        wake = undefined
        resume?.()
      },
      cancel() {
        if (fiber !== undefined) Runtime.runFork(runtime)(Fiber.interrupt(fiber))
      }
    },
    new ByteLengthQueuingStrategy({ highWaterMark: BUFFERED_BYTES })
  )
}

const ExportFile = z
  .string()
  .describe(
    `An export as it was written (Content-Type ${NDJSON}), at most ${MAX_STREAMED_BODY_BYTES} bytes, each line at most ${Transfer.MAX_LINE_BYTES} bytes: the header {"format": "${Transfer.FORMAT}", "version": ${Transfer.VERSION}, "store", "schema", "organisation_id", "exported_at", "secrets"}, one line per stored row, and {"type": "end", "items": n}.`
  )

export const transferRoutes = [
  route({
    method: "GET",
    path: "/organisations/{id}/export",
    params: { id: Organisation.OrganisationId },
    operationId: "adminExportOrganisation",
    tag: "admin",
    guard: admin,
    summary: `Export everything the organisation owns as JSON lines, streamed from one consistent view of the store: a header {"format": "${Transfer.FORMAT}", "version": ${Transfer.VERSION}, "store", "schema", "organisation_id", "exported_at", "secrets"}, then one line per stored row in an order an import replays (the organisation and its settings, API keys with their hashes, records of every kind, the stock ledger, numbering state, events, hooks and their deliveries), then {"type": "end", "items": n}. Hooks' signing secrets are null unless include_secrets=true. The rows are the store's own: a file imports into a store of the same kind and schema (PGlite and PostgreSQL are one kind).`,
    query: Transfer.ExportQuery,
    success: { status: 200, description: "the organisation as JSON lines", file: NDJSON },
    errors: ["not_found"],
    handle: ({ params, query }) =>
      Effect.gen(function* () {
        const transfer = yield* Transfer.Transfer
        const header = yield* transfer.header(params.id, query)
        const runtime = yield* Effect.runtime<never>()
        return {
          status: 200,
          headers: {
            "content-type": NDJSON,
            "content-disposition": `attachment; filename="organisation-${params.id}.ndjson"`
          },
          stream: linesStream(runtime, (emit) => transfer.exportTo(header, emit))
        }
      })
  }),
  route({
    method: "POST",
    path: "/organisations/import",
    operationId: "adminImportOrganisation",
    tag: "admin",
    guard: admin,
    summary:
      "Import an organisation from an export, all or nothing, into the organisation of the same id with every id, number and total kept. A line the store cannot take (or a file cut short, without its end line) is 422 import_failed with detail {line, type, error, detail}; an organisation id the store already holds is 409 organisation_exists. Hooks exported without secrets get new ones.",
    body: ExportFile,
    rawBody: "stream",
    success: { status: 201, schema: Transfer.ImportSummary, description: "the organisation imported" },
    errors: ["import_failed", "organisation_exists"],
    handle: ({ body }) =>
      Effect.flatMap(Transfer.Transfer, (transfer) =>
        // The pipeline hands a streamed body over as its bytes (see `Route`), not as the text the schema describes.
        transfer.importFrom(
          body as unknown as Stream.Stream<Uint8Array, HttpFailure<"payload_too_large" | "invalid_json">>
        )
      ).pipe(Effect.map(created))
  })
]

export const transferArea: Area = { admin: transferRoutes }
