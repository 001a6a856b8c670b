/** The cursor secret in memory: the first candidate offered is kept for the life of the store. */
import { Cursors } from "@crm/core"
import type * as Context from "effect/Context"
import * as Either from "effect/Either"
import { type Store, write } from "./internal/Store.js"

export const make = (store: Store): Context.Tag.Service<typeof Cursors.CursorSecret> =>
  Cursors.CursorSecret.of({
    get: (candidate) =>
      write(store, (state) =>
        state.cursorSecret !== undefined
          ? [Either.right(state.cursorSecret), state]
          : [Either.right(candidate), { ...state, cursorSecret: candidate }]
      )
  })
