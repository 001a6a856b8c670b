/**
 * Events as JSON text. A page of events is a hundred stored payloads; parsing each one only to
 * render it again was the larger part of serving the page. A store that holds a payload as JSON
 * text hands it over as it is (`envelopeOfText`), and a transport renders the page with
 * `renderEventPage`, which sends that text untouched.
 */
import type { EventName } from "./EventCatalogue.js"
import type { EventEnvelope, EventPage } from "./EventSchemas.js"

class StoredEnvelope {
  declare readonly id: string
  declare readonly event: EventName
  declare readonly data: Record<string, unknown>
  declare readonly created_at: string
  readonly #text: string
  #data: Record<string, unknown> | undefined

  // `data` is an own, enumerable property read on demand: spreading, `JSON.stringify`,
  // `structuredClone` and deep equality all see the parsed payload, exactly as on a plain
  // envelope, and only a reader who never asks for it (the page renderer) skips the parse.
  static readonly #dataProperty: PropertyDescriptor = {
    enumerable: true,
    get(this: StoredEnvelope) {
      if (this.#data === undefined) this.#data = JSON.parse(this.#text) as Record<string, unknown>
      return this.#data
    }
  }

  constructor(id: string, event: EventName, text: string, createdAt: string) {
    // Made in the wire schema's order, which is the order JSON.stringify renders them in.
    this.id = id
    this.event = event
    Object.defineProperty(this, "data", StoredEnvelope.#dataProperty)
    this.created_at = createdAt
    this.#text = text
  }

  static text(envelope: EventEnvelope): string {
    return #text in envelope ? (envelope as StoredEnvelope).#text : JSON.stringify(envelope.data)
  }
}

/** An envelope whose payload is the JSON text a store holds (as the store wrote it, from JSON.stringify). */
export const envelopeOfText = (id: string, event: EventName, data: string, createdAt: string): EventEnvelope =>
  new StoredEnvelope(id, event, data, createdAt)

/** The same text as `JSON.stringify(page)`, with stored payloads sent as they are stored. */
export const renderEventPage = (page: EventPage): string => {
  let text = '{"data":['
  for (let n = 0; n < page.data.length; n++) {
    const envelope = page.data[n]!
    text += `${n === 0 ? "" : ","}{"id":${JSON.stringify(envelope.id)},"event":${JSON.stringify(envelope.event)},"data":${StoredEnvelope.text(envelope)},"created_at":${JSON.stringify(envelope.created_at)}}`
  }
  return `${text}],"next_cursor":${JSON.stringify(page.next_cursor)},"has_more":${page.has_more}}`
}
