/**
 * Notes and the activity timeline: what the assistant reads before a call ("what happened with
 * this client lately?") and writes after one (a note, optionally logging the call itself).
 */
import { Activity, Calls, Errors, Notes, Search } from "@crm/core"
import * as Effect from "effect/Effect"
import { z } from "zod"
import { CREATES, limitInput, READ_ONLY, type Tool, tool } from "../Tool.js"

export const RECENT_ACTIVITY_CAP = 50

const recentActivity = tool({
  name: "recent_activity",
  title: "Recent activity",
  description:
    "Returns the activity timeline of one contact, company, deal or custom record, newest first: notes, calls (contacts), tasks created and completed, deal stage changes and the record's creation, each as {at, kind, title, detail, ref}. " +
    "Use it to catch up on a client before a call or to answer 'what happened with X lately'. " +
    "Name the record by `entity_type` and `entity_id`, or by an `id` as `search` returns it (`contact:<uuid>`, `company:<uuid>`, `deal:<uuid>`).",
  scope: "read",
  annotations: READ_ONLY,
  input: Activity.TimelineQuery.pick({ entity_type: true, entity_id: true })
    .partial()
    .extend({
      id: z.string().min(1).max(100).optional().describe("instead of entity_type and entity_id: an id from search"),
      limit: limitInput(RECENT_ACTIVITY_CAP)
    }),
  output: Activity.Timeline,
  run: ({ id, entity_type, entity_id, limit }, { principal }) =>
    Effect.gen(function* () {
      const named =
        id !== undefined && entity_type === undefined && entity_id === undefined
          ? Search.parseRecordId(id)
          : id === undefined && entity_type !== undefined && entity_id !== undefined
            ? { kind: entity_type, uuid: entity_id }
            : undefined
      if (named === undefined) {
        return yield* Effect.fail(
          id === undefined
            ? Errors.invalidField("entity_id", "give entity_type and entity_id, or an id from search", "required")
            : Errors.invalidField("id", "must be contact:<uuid>, company:<uuid> or deal:<uuid> as returned by search")
        )
      }
      const activity = yield* Activity.Activity
      return yield* activity.timeline(principal.organisation, {
        entity_type: named.kind,
        entity_id: named.uuid,
        limit
      })
    })
})

const logNote = tool({
  name: "log_note",
  title: "Log a note",
  description:
    "Writes a note (type note, call, meeting or email) on a contact, company, deal or custom record and returns {note, call}. " +
    "With type `call` it also logs the call (optional `call` details: direction, status, duration; the record's contact is the other party) and `call` is that call, else null.",
  scope: "write",
  annotations: CREATES,
  input: Notes.NoteCreate,
  output: z.object({
    note: Notes.Note,
    call: Calls.Call.nullable().describe("the call a call note logged, else null")
  }),
  run: (input, { principal, actor }) =>
    Effect.flatMap(Notes.Notes, (notes) => notes.log(principal.organisation, input, actor))
})

export const activityTools: ReadonlyArray<Tool> = [recentActivity, logNote]
