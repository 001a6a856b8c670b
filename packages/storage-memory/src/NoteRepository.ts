/** Notes in memory: written once, never changed but for their pin, never archived. */
import { Errors, Notes } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { copy, copyOut, newestFirst, read, type Store, slot, tenant, withTenant, write } from "./internal/Store.js"

/**
 * An organisation exported before notes had a pin holds notes without one: they read back
 * unpinned, as the PostgreSQL column's default makes them (migration `0024_notes_pinned`).
 */
export const notes = slot("notes", HashMap.empty<string, Notes.Note>(), {
  entries: (rows) => rows,
  fromEntries: (entries) =>
    HashMap.fromIterable(
      entries.map(([id, note]) => [id, { pinned: false, ...(note as Omit<Notes.Note, "pinned">) }] as const)
    )
})

export const make = (store: Store): Context.Tag.Service<typeof Notes.NoteRepository> =>
  Notes.NoteRepository.of({
    insert: (organisationId, input) =>
      Effect.flatMap(copy(input), (note) =>
        write(store, (state) => {
          const t = tenant(state, organisationId)
          if (HashMap.has(notes.get(t), note.id)) {
            return [Either.left(new Errors.StorageError({ message: `duplicate note id ${note.id}` })), state]
          }
          return [
            Either.right(undefined),
            withTenant(
              state,
              organisationId,
              notes.update(t, (rows) => HashMap.set(rows, note.id, note))
            )
          ]
        })
      ),

    get: (organisationId, id) =>
      read(store, (state) => Option.map(HashMap.get(notes.get(tenant(state, organisationId)), id), copyOut)),

    pin: (organisationId, id, pinned) =>
      write(store, (state) => {
        const t = tenant(state, organisationId)
        const found = HashMap.get(notes.get(t), id)
        if (Option.isNone(found)) return [Either.right(Option.none()), state]
        const note = { ...found.value, pinned }
        return [
          Either.right(Option.some(copyOut(note))),
          withTenant(
            state,
            organisationId,
            notes.update(t, (rows) => HashMap.set(rows, id, note))
          )
        ]
      }),

    list: (organisationId, filter, page) =>
      read(store, (state) =>
        [...HashMap.values(notes.get(tenant(state, organisationId)))]
          .filter(
            (note) =>
              (filter.entityType === undefined || note.entity_type === filter.entityType) &&
              (filter.entityId === undefined || note.entity_id === filter.entityId) &&
              (filter.pinned === undefined || note.pinned === filter.pinned)
          )
          .sort(newestFirst)
          .slice(page.offset, page.offset + page.limit + 1)
          .map(copyOut)
      )
  })
