/**
 * Notes and the activity timeline: what the assistant reads before a call ("what happened with
 * this client lately?") and writes after one (a note, optionally logging the call itself).
 */
import { Activity, Notes } from "@crm/core"
import * as Effect from "effect/Effect"
import { CREATES, limitInput, READ_ONLY, type Tool, tool } from "../Tool.js"

export const RECENT_ACTIVITY_CAP = 50

const recentActivity = tool({
  name: "recent_activity",
  title: "Recent activity",
  description:
    "Returns the activity timeline of one contact, company, deal or custom record, newest first: notes, calls (contacts), tasks created and completed, deal stage changes and the record's creation, each as {at, kind, title, detail, ref}. " +
    "Use it to catch up on a client before a call or to answer 'what happened with X lately'.",
  scope: "read",
  annotations: READ_ONLY,
  input: Activity.TimelineQuery.pick({ entity_type: true, entity_id: true }).extend({
    limit: limitInput(RECENT_ACTIVITY_CAP)
  }),
  run: (input, { principal }) =>
    Effect.flatMap(Activity.Activity, (activity) => activity.timeline(principal.organisation, input))
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
  run: (input, { principal, actor }) =>
    Effect.flatMap(Notes.Notes, (notes) => notes.log(principal.organisation, input, actor))
})

export const activityTools: ReadonlyArray<Tool> = [recentActivity, logNote]
