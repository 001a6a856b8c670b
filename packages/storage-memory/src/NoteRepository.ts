/** Notes in memory: written once, never changed or archived. */
import { Errors, Notes } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import { copy, copyOut, newestFirst, read, type Store, slot, tenant, withTenant, write } from "./internal/Store.js"

export const notes = slot("notes", HashMap.empty<string, Notes.Note>())

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

    list: (organisationId, filter, page) =>
      read(store, (state) =>
        [...HashMap.values(notes.get(tenant(state, organisationId)))]
          .filter(
            (note) =>
              (filter.entityType === undefined || note.entity_type === filter.entityType) &&
              (filter.entityId === undefined || note.entity_id === filter.entityId)
          )
          .sort(newestFirst)
          .slice(page.offset, page.offset + page.limit + 1)
          .map(copyOut)
      )
  })
