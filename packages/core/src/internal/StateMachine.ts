/**
 * A status machine as data: each status lists the statuses it may move to. The pure `transition`
 * every such machine shares; a status listing nothing is final.
 */
import * as Either from "effect/Either"
import { TransitionNotAllowed } from "../Errors.js"

export type Transitions<S extends string> = { readonly [From in S]: ReadonlyArray<S> }

export const transitionIn =
  <S extends string>(table: Transitions<S>) =>
  (from: S, to: S): Either.Either<S, TransitionNotAllowed> =>
    table[from].includes(to) ? Either.right(to) : Either.left(new TransitionNotAllowed({ detail: { from, to } }))

export const isFinalIn =
  <S extends string>(table: Transitions<S>) =>
  (status: S): boolean =>
    table[status].length === 0
