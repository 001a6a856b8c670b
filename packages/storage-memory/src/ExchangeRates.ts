/** Central-bank rates in memory: per currency pair, a tree by date, so `latest` is one descent. */
import { Invoicing } from "@crm/core"
import type * as Context from "effect/Context"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Iterable from "effect/Iterable"
import * as Option from "effect/Option"
import * as Order from "effect/Order"
import * as RedBlackTree from "effect/RedBlackTree"
import { read, type Store, write } from "./internal/Store.js"

type ByDate = RedBlackTree.RedBlackTree<string, string>

// JSON quoting keeps any two distinct pairs apart, whatever characters the codes hold.
const pairKey = (from: string, to: string): string => JSON.stringify([from, to])

// YYYY-MM-DD orders as text in calendar order.
const emptyByDate: ByDate = RedBlackTree.empty<string, string>(Order.string)

export const make = (store: Store): Context.Tag.Service<typeof Invoicing.ExchangeRates> =>
  Invoicing.ExchangeRates.of({
    // Rates are immutable strings, so nothing needs copying; a later rate in the batch for the same day wins.
    store: (rates) =>
      write(store, (state) => {
        let exchangeRates = state.exchangeRates
        const stored = new Set<string>()
        for (const { date, from, to, rate } of rates) {
          const pair = pairKey(from, to)
          const byDate = Option.getOrElse(HashMap.get(exchangeRates, pair), () => emptyByDate)
          // The tree keeps duplicate keys side by side; a day's rate replaces the one before.
          exchangeRates = HashMap.set(
            exchangeRates,
            pair,
            RedBlackTree.insert(RedBlackTree.removeFirst(byDate, date), date, rate)
          )
          stored.add(JSON.stringify([date, from, to]))
        }
        return [Either.right(stored.size), { ...state, exchangeRates }]
      }),
    latest: (from, to, date) =>
      read(store, (state) =>
        HashMap.get(state.exchangeRates, pairKey(from, to)).pipe(
          Option.flatMap((byDate) => Iterable.head(RedBlackTree.lessThanEqualReversed(byDate, date))),
          Option.map(([published, rate]) => ({ date: published, from, to, rate }))
        )
      )
  })
