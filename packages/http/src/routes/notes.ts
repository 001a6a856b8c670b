/**
 * Notes over REST (an extension: the contract has them only as the assistant's `log_note`): the
 * history of a contact, company, deal or custom record, each note pinned or not.
 */
import { Notes } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import { created } from "../Reply.js"
import { route, write } from "../Route.js"
import { actorOf } from "./principal.js"
import { getRoute, listRoute, patchRoute } from "./resource.js"

const spec = {
  service: Notes.Notes,
  plural: "notes",
  singular: "note",
  pascal: "Note",
  schemas: {
    id: Notes.NoteId,
    create: Notes.NoteCreate,
    patch: Notes.NotePatch,
    record: Notes.Note,
    page: Notes.NotePage,
    query: Notes.NoteListQuery
  },
  createErrors: ["validation_failed"],
  updateErrors: [],
  notes: { update: "Pin or unpin a note (pinned); a note's body and type stay as written" }
} as const

export const notesArea: Area = {
  api: [
    listRoute(spec),
    route({
      method: "POST",
      path: "/notes",
      operationId: "createNote",
      tag: "notes",
      guard: write,
      summary:
        "Write a note on a live contact, company, deal or custom record (else 422 naming entity_id); a call note (type call) also logs the call, with its event, and links it as call_id",
      body: Notes.NoteCreate,
      success: { status: 201, schema: Notes.Note, description: "the created note" },
      errors: ["validation_failed"],
      handle: ({ principal, body }) =>
        Effect.flatMap(Notes.Notes, (notes) => notes.log(principal.organisation, body, actorOf(principal))).pipe(
          Effect.map(({ note }) => created(note))
        )
    }),
    getRoute(spec),
    patchRoute(spec)
  ],
  schemaNames: named(Notes, "Note", "NoteCreate", "NotePatch", "NotePage", "NoteEntityType", "NoteType", "NoteCall")
}
