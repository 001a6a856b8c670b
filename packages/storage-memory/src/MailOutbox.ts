/** The mail outbox in memory: messages per organisation; claiming is one atomic change over all of them. */
import { Mail } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import {
  copy,
  copyOut,
  earliestFirst,
  instant,
  newestFirst,
  read,
  type Store,
  slot,
  tenant,
  withTenant,
  write
} from "./internal/Store.js"

/**
 * An organisation exported before messages could be withheld holds messages without the flag:
 * they read back shown, as the PostgreSQL column's default makes them (migration `0025_people`).
 */
export const mail = slot("mail", HashMap.empty<string, Mail.MailMessage>(), {
  entries: (rows) => rows,
  fromEntries: (entries) =>
    HashMap.fromIterable(
      entries.map(
        ([id, message]) => [id, { withheld: false, ...(message as Omit<Mail.MailMessage, "withheld">) }] as const
      )
    )
})

const dueFirst = earliestFirst<Mail.MailMessage>((message) => message.next_attempt_at ?? "")

export const make = (store: Store): Context.Tag.Service<typeof Mail.MailOutbox> =>
  Mail.MailOutbox.of({
    enqueue: (organisationId, input) =>
      Effect.flatMap(copy(input), (message) =>
        write(store, (state) => {
          const t = tenant(state, organisationId)
          return [
            Either.right(undefined),
            withTenant(
              state,
              organisationId,
              mail.update(t, (messages) => HashMap.set(messages, message.id, message))
            )
          ]
        })
      ),

    list: (organisationId, filter, page) =>
      read(store, (state) =>
        [...HashMap.values(mail.get(tenant(state, organisationId)))]
          .filter((message) => filter.status === undefined || message.status === filter.status)
          .sort(newestFirst)
          .slice(page.offset, page.offset + page.limit + 1)
          .map(copyOut)
      ),

    claimDue: (now, leaseUntil, limit) =>
      write(store, (state) => {
        const due: Array<Mail.ClaimedMail> = []
        for (const [organisationId, t] of state.tenants)
          for (const message of HashMap.values(mail.get(t)))
            if (
              message.status === "queued" &&
              message.next_attempt_at !== null &&
              instant(message.next_attempt_at) <= instant(now)
            )
              due.push({ organisationId, message })
        const claimed = due
          .sort((a, b) => dueFirst(a.message, b.message))
          .slice(0, limit)
          .map(({ organisationId, message }) => ({
            organisationId,
            message: { ...message, attempts: message.attempts + 1, next_attempt_at: leaseUntil }
          }))
        let next = state
        for (const { organisationId, message } of claimed) {
          next = withTenant(
            next,
            organisationId,
            mail.update(tenant(next, organisationId), (messages) => HashMap.set(messages, message.id, message))
          )
        }
        return [Either.right(claimed.map(copyOut)), next]
      }),

    record: (organisationId, input) =>
      Effect.flatMap(copy(input), (message) =>
        write(store, (state) => {
          const t = tenant(state, organisationId)
          return HashMap.has(mail.get(t), message.id)
            ? [
                Either.right(undefined),
                withTenant(
                  state,
                  organisationId,
                  mail.update(t, (messages) => HashMap.set(messages, message.id, message))
                )
              ]
            : [Either.right(undefined), state]
        })
      )
  })
