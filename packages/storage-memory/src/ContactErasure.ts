/**
 * The copies of a contact's personal data held outside its own row, erased in memory as
 * `Contacts.ContactErasure` rules. One pure step over a tenant, run inside the contact
 * repository's atomic change.
 */
import { Contacts, type Events } from "@crm/core"
import * as HashMap from "effect/HashMap"
import * as RedBlackTree from "effect/RedBlackTree"
import { bookingRows } from "./BookingRepository.js"
import { calls } from "./CallRepository.js"
import { history } from "./EventLog.js"
import { formSubmissions } from "./FormSubmissionRepository.js"
import { invoices } from "./InvoiceRepository.js"
import type { Row, Slot, Tenant } from "./internal/Store.js"
import { mail } from "./MailOutbox.js"
import { notes } from "./NoteRepository.js"
import { surveyResponses } from "./SurveyResponseRepository.js"
import { tickets } from "./TicketRepository.js"
import { visits } from "./VisitRepository.js"
import { deliveryRows } from "./WebhookRepository.js"

interface Erased {
  readonly tenant: Tenant
  readonly changed: boolean
  readonly kept: ReadonlyArray<Contacts.ErasureKept>
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * Rewrites every value of `table` that `f` changes (`f` returns its input to leave it), or drops
 * it when `f` returns undefined; reports whether anything changed.
 */
const rewrite = <A>(
  t: Tenant,
  table: Slot<HashMap.HashMap<string, A>>,
  f: (value: A) => A | undefined
): readonly [Tenant, boolean] => {
  let rows = table.get(t)
  let changed = false
  for (const [id, value] of rows) {
    const next = f(value)
    if (next === value) continue
    changed = true
    rows = next === undefined ? HashMap.remove(rows, id) : HashMap.set(rows, id, next)
  }
  return changed ? [table.set(t, rows), true] : [t, false]
}

/**
 * `rewrite` for the contact's live-record rows, archived or not: `f` sees and returns the record.
 * A changed record is stamped `at`, so that a sync client following `updated_since` fetches it again.
 */
const rewriteRecords = <A extends { readonly contact_id: string | null; readonly updated_at: string }>(
  t: Tenant,
  table: Slot<HashMap.HashMap<string, Row<A>>>,
  contactId: string,
  at: string,
  f: (record: A) => A
): readonly [Tenant, boolean] =>
  rewrite(t, table, (row) => {
    if (row.record.contact_id !== contactId) return row
    const record = f(row.record)
    return same(record, row.record) ? row : { ...row, record: { ...record, updated_at: at } }
  })

/**
 * `address` is the contact's email unless another live contact holds it now: mail to a mailbox
 * that someone else answers to is theirs too, and stays.
 */
export const eraseCopies = (t0: Tenant, contact: Contacts.Contact, address: string | null, at: string): Erased => {
  const id = contact.id
  let t = t0
  let changed = false
  const step = (result: readonly [Tenant, boolean]) => {
    t = result[0]
    changed ||= result[1]
  }

  // Events and the webhook bodies that carry them: the same envelope, rewritten in both.
  let tree = history.get(t)
  const rewritten = new Map<string, string>()
  for (const [eventId, envelope] of history.get(t)) {
    if (!Contacts.namesContact(envelope.event, envelope.data, id)) continue
    const data = Contacts.erasePayload(envelope.data)
    if (data === envelope.data) continue
    const next: Events.EventEnvelope = { ...envelope, data: { ...data } }
    tree = RedBlackTree.insert(RedBlackTree.removeFirst(tree, eventId), eventId, next)
    rewritten.set(envelope.id, JSON.stringify(next))
  }
  if (rewritten.size > 0) {
    t = history.set(t, tree)
    changed = true
  }
  // A receiver's answer may echo the body, so the attempts' excerpts of those deliveries go too.
  step(
    rewrite(t, deliveryRows, (row) => {
      const body = rewritten.get(row.delivery.event_id)
      return body === undefined
        ? row
        : { ...row, body, attempts: row.attempts.map((attempt) => ({ ...attempt, response_excerpt: null })) }
    })
  )

  const folded = address?.toLowerCase()
  step(rewrite(t, mail, (message) => (message.to.toLowerCase() === folded ? undefined : message)))
  step(rewrite(t, visits, (visit) => (visit.contact_id === id ? undefined : visit)))
  step(rewrite(t, notes, (note) => (note.entity_type === "contact" && note.entity_id === id ? undefined : note)))
  step(
    rewrite(t, formSubmissions, (submission) =>
      submission.contact_id !== id || (same(submission.fields, {}) && submission.visitor_id === null)
        ? submission
        : { ...submission, fields: {}, visitor_id: null }
    )
  )
  step(rewriteRecords(t, surveyResponses, id, at, (response) => ({ ...response, comment: null })))
  step(
    rewriteRecords(t, calls, id, at, (call) => ({
      ...call,
      from_number: "",
      to_number: "",
      recording_url: null,
      transcript: null,
      summary: null
    }))
  )
  step(
    rewriteRecords(t, tickets, id, at, (ticket) => ({ ...ticket, subject: "", description: null, requester_email: "" }))
  )
  step(rewriteRecords(t, bookingRows, id, at, (booking) => ({ ...booking, name: "", email: "", answers: {} })))

  const kept: Array<Contacts.ErasureKept> = []
  step(
    rewriteRecords(t, invoices, id, at, (invoice) => {
      if (!Contacts.keepsBuyer(invoice)) return { ...invoice, buyer: Contacts.eraseBuyer(invoice, contact) }
      kept.push({ what: "invoice", id: invoice.id, reason: Contacts.ISSUED_INVOICE_REASON })
      return invoice
    })
  )
  kept.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return { tenant: t, changed, kept }
}
