/**
 * The unit of work (`Transaction`): all of its writes commit together or none do (failure, defect,
 * interruption, a nested unit), work in progress stays invisible, and the organisation lock, a
 * natural key's lock and the database's unique rules hold under concurrent units.
 */
import { Companies, Contacts, Errors, Events, type Organisation, Transaction } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import {
  allEvents,
  at,
  Boom,
  expectEmailTaken,
  expectIncreasing,
  firm,
  ids,
  person,
  type StoragePorts,
  seed
} from "./Fixtures.js"

type Contact = Contacts.Contact

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`Transaction storage contract: ${name}`, () => {
    test(
      "a unit of work commits all its writes and returns its value",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const log = yield* Events.EventLog
        const ann = person({ first_name: "Ann" })
        const value = yield* tx.run(
          Effect.gen(function* () {
            yield* repo.insert(a.id, ann)
            yield* log.append(a.id, [{ event: "contact.created", data: { id: ann.id } }], at(0))
            return "done"
          })
        )
        expect(value).toBe("done")
        expect(Option.isSome(yield* repo.get(a.id, ann.id))).toBe(true)
        expect((yield* allEvents(a.id)).map((event) => event.data)).toEqual([{ id: ann.id }])
      })
    )

    test(
      "a failure rolls back every write of the unit (the contact and its event are both absent)",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const companies = yield* Companies.CompanyRepository
        const log = yield* Events.EventLog
        const ann = person({ first_name: "Ann", email: "ann@example.com" })
        const acme = firm()
        const error = yield* Effect.flip(
          tx.run(
            Effect.gen(function* () {
              yield* companies.insert(a.id, acme)
              yield* repo.insert(a.id, ann)
              yield* log.append(a.id, [{ event: "contact.created", data: { id: ann.id } }], at(0))
              return yield* new Boom({ step: "after append" })
            })
          )
        )
        expect(error).toEqual(new Boom({ step: "after append" }))
        expect(Option.isNone(yield* repo.get(a.id, ann.id))).toBe(true)
        expect(Option.isNone(yield* companies.get(a.id, acme.id))).toBe(true)
        expect(yield* repo.countLive(a.id)).toBe(0)
        expect(yield* allEvents(a.id)).toEqual([])

        // Nothing is left locked or half-done: the address is free and the next unit commits.
        const next = person({ email: "ann@example.com" })
        yield* tx.run(
          Effect.gen(function* () {
            yield* repo.insert(a.id, next)
            yield* log.append(a.id, [{ event: "contact.created", data: { id: next.id } }], at(1))
          })
        )
        expect(Option.isSome(yield* repo.get(a.id, next.id))).toBe(true)
        expect((yield* allEvents(a.id)).map((event) => event.data)).toEqual([{ id: next.id }])
      })
    )

    test(
      "a defect rolls back too",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const ann = person()
        const exit = yield* Effect.exit(tx.run(Effect.zipRight(repo.insert(a.id, ann), Effect.die("bug"))))
        expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, ann.id))).toBe(true)
      })
    )

    test(
      "interruption rolls back, and the store stays usable",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const log = yield* Events.EventLog
        const ann = person({ email: "ann@example.com" })
        const entered = yield* Deferred.make<void>()
        const fiber = yield* Effect.fork(
          tx.run(
            Effect.gen(function* () {
              yield* repo.insert(a.id, ann)
              yield* log.append(a.id, [{ event: "contact.created", data: { id: ann.id } }], at(0))
              yield* Deferred.succeed(entered, undefined)
              return yield* Effect.never
            })
          )
        )
        yield* Deferred.await(entered)
        yield* Fiber.interrupt(fiber)

        expect(Option.isNone(yield* repo.get(a.id, ann.id))).toBe(true)
        expect(yield* allEvents(a.id)).toEqual([])
        const next = person({ email: "ann@example.com" })
        yield* tx.run(repo.insert(a.id, next))
        expect(Option.isSome(yield* repo.get(a.id, next.id))).toBe(true)
      })
    )

    test(
      "a nested unit joins the enclosing one: its failure, once it escapes, undoes the whole unit",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const log = yield* Events.EventLog
        const [first, inner] = [person({ first_name: "A" }), person({ first_name: "B" })]
        const created = (contact: Contact) =>
          log.append(a.id, [{ event: "contact.created", data: { id: contact.id } }], at(0))
        const error = yield* Effect.flip(
          tx.run(
            Effect.gen(function* () {
              yield* repo.insert(a.id, first)
              yield* created(first)
              yield* tx.run(
                Effect.gen(function* () {
                  yield* repo.insert(a.id, inner)
                  yield* created(inner)
                  return yield* new Boom({ step: "inner" })
                })
              )
            })
          )
        )
        expect(error).toEqual(new Boom({ step: "inner" }))
        expect(Option.isNone(yield* repo.get(a.id, first.id))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, inner.id))).toBe(true)
        expect(yield* allEvents(a.id)).toEqual([])
      })
    )

    test(
      "a port's conflict leaves the unit usable: caught, the unit goes on and commits the rest",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const log = yield* Events.EventLog
        const holder = person({ email: "held@example.com" })
        yield* tx.run(repo.insert(a.id, holder))
        const [clash, last] = [person({ email: "held@example.com" }), person({ first_name: "C" })]
        const conflict = yield* tx.run(
          Effect.gen(function* () {
            const refused = yield* Effect.flip(repo.insert(a.id, clash))
            yield* repo.insert(a.id, last)
            yield* log.append(a.id, [{ event: "contact.created", data: { id: last.id } }], at(0))
            return refused
          })
        )
        expect(conflict).toBeInstanceOf(Errors.EmailAlreadyExists)
        expect((conflict as Errors.EmailAlreadyExists).detail).toMatchObject({ id: holder.id })
        expect(Option.isNone(yield* repo.get(a.id, clash.id))).toBe(true)
        expect(Option.isSome(yield* repo.get(a.id, last.id))).toBe(true)
        expect((yield* allEvents(a.id)).map((event) => event.data)).toEqual([{ id: last.id }])
      })
    )

    test(
      "a nested unit that succeeded is still undone when the outer unit fails",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const [outer, inner] = [person(), person()]
        const error = yield* Effect.flip(
          tx.run(
            Effect.gen(function* () {
              yield* repo.insert(a.id, outer)
              yield* tx.run(repo.insert(a.id, inner))
              return yield* new Boom({ step: "outer" })
            })
          )
        )
        expect(error._tag).toBe("Boom")
        expect(Option.isNone(yield* repo.get(a.id, outer.id))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, inner.id))).toBe(true)
        expect(yield* repo.countLive(a.id)).toBe(0)
      })
    )

    test(
      "a nested failure that is not caught fails the whole unit",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const [outer, inner] = [person(), person()]
        const error = yield* Effect.flip(
          tx.run(
            Effect.gen(function* () {
              yield* repo.insert(a.id, outer)
              yield* tx.run(Effect.zipRight(repo.insert(a.id, inner), new Boom({ step: "inner" })))
            })
          )
        )
        expect(error).toEqual(new Boom({ step: "inner" }))
        expect(yield* repo.countLive(a.id)).toBe(0)
      })
    )

    concurrent(
      "work in progress is invisible outside its unit, and gone after it fails",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const log = yield* Events.EventLog
        const ann = person()
        const written = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        const unit = yield* Effect.fork(
          tx.run(
            Effect.gen(function* () {
              yield* repo.insert(a.id, ann)
              yield* log.append(a.id, [{ event: "contact.created", data: { id: ann.id } }], at(0))
              yield* Deferred.succeed(written, undefined)
              yield* Deferred.await(gate)
              return yield* new Boom({ step: "after the reads" })
            })
          )
        )
        yield* Deferred.await(written)
        // An adapter may answer these at once (from committed state) or only after the unit
        // ends; either way they must not see its writes.
        const reads = yield* Effect.fork(Effect.all([repo.get(a.id, ann.id), allEvents(a.id), repo.countLive(a.id)]))
        yield* Effect.sleep("50 millis")
        yield* Deferred.succeed(gate, undefined)
        const [found, events, count] = yield* Fiber.join(reads)
        expect(Option.isNone(found)).toBe(true)
        expect(events).toEqual([])
        expect(count).toBe(0)
        expect(Exit.isFailure(yield* Fiber.await(unit))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, ann.id))).toBe(true)
      })
    )

    concurrent(
      "50 concurrent units each inserting a contact and its event all commit; a poller following the cursor sees every event once, in id order",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const log = yield* Events.EventLog
        const contacts = Array.from({ length: 50 }, (_, i) =>
          person({ first_name: `P${i}`, email: `p${i}@example.com` })
        )
        const writersDone = yield* Deferred.make<void>()

        const poller = Effect.gen(function* () {
          const seen: Array<string> = []
          let cursor = 0n
          for (;;) {
            const finished = yield* Deferred.isDone(writersDone)
            const rows = yield* log.after(a.id, { since: cursor, event: undefined, limit: 7 })
            for (const row of rows.slice(0, 7)) {
              seen.push(row.id)
              cursor = BigInt(row.id)
            }
            if (rows.length === 0) {
              if (finished) return seen
              yield* Effect.sleep("1 millis")
            }
          }
        })
        const polling = yield* Effect.fork(poller)

        yield* Effect.forEach(
          contacts,
          (contact, i) =>
            tx.run(
              Effect.gen(function* () {
                yield* repo.insert(a.id, contact)
                // Vary how long each unit stays open before and after taking its event id, so that
                // commits would come in another order than ids if the adapter let them.
                yield* Effect.sleep(`${(i * 7) % 5} millis`)
                yield* log.append(a.id, [{ event: "contact.created", data: { id: contact.id, n: i } }], at(i))
                yield* Effect.sleep(`${(i * 3) % 4} millis`)
              })
            ),
          { concurrency: "unbounded", discard: true }
        )
        yield* Deferred.succeed(writersDone, undefined)
        const seen = yield* Fiber.join(polling)

        const events = yield* allEvents(a.id)
        expect(events).toHaveLength(50)
        expectIncreasing(ids(events))
        expect(events.map((event) => event.data.id).sort()).toEqual(ids(contacts).sort())
        expect(seen).toEqual(ids(events))
        expect(yield* repo.countLive(a.id)).toBe(50)
        for (const contact of contacts) expect(Option.isSome(yield* repo.get(a.id, contact.id))).toBe(true)
      }),
      120_000
    )

    concurrent(
      "30 concurrent units that insert, lock the organisation, count and roll back past 5: exactly 5 commit",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const log = yield* Events.EventLog
        // What a create under a plan limit does: insert, then count under the lock until commit.
        const createUnderLimit = (organisationId: Organisation.OrganisationId, i: number) =>
          Effect.either(
            tx.run(
              Effect.gen(function* () {
                const contact = person({ first_name: `P${i}` })
                yield* repo.insert(organisationId, contact)
                // Leave the unit open before the lock, so that the units' inserts overlap.
                yield* Effect.sleep(`${i % 3} millis`)
                yield* tx.lockOrganisation(organisationId)
                if ((yield* repo.countLive(organisationId)) > 5) return yield* new Boom({ step: "over the limit" })
                // The event log's append, which takes the organisation's lock as well, still goes through.
                yield* log.append(organisationId, [{ event: "contact.created", data: { id: contact.id } }], at(i))
              })
            )
          )
        const results = yield* Effect.forEach(
          Array.from({ length: 30 }, (_, i) => i),
          (i) => createUnderLimit(i % 2 === 0 ? a.id : b.id, i),
          { concurrency: "unbounded" }
        )
        expect(results.filter((result, i) => Either.isRight(result) && i % 2 === 0)).toHaveLength(5)
        expect(results.filter((result, i) => Either.isRight(result) && i % 2 === 1)).toHaveLength(5)
        for (const result of results)
          if (Either.isLeft(result)) expect(result.left).toEqual(new Boom({ step: "over the limit" }))
        expect(yield* repo.countLive(a.id)).toBe(5)
        expect(yield* repo.countLive(b.id)).toBe(5)
        expect(yield* allEvents(a.id)).toHaveLength(5)

        // A unit that fails lets go of the lock: the next one takes it and commits.
        yield* Effect.flip(tx.run(Effect.zipRight(tx.lockOrganisation(a.id), new Boom({ step: "locked" }))))
        yield* tx.run(Effect.zipRight(tx.lockOrganisation(a.id), repo.insert(a.id, person({ first_name: "Last" }))))
        expect(yield* repo.countLive(a.id)).toBe(6)
      }),
      120_000
    )

    concurrent(
      "a unit taking a key's lock another unit holds starts only once that one has committed",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const key = "contact.email:ada@example.com"
        const steps = yield* Ref.make<ReadonlyArray<string>>([])
        const step = (name: string) => Ref.update(steps, (before) => [...before, name])
        const [held, secondIn] = [yield* Deferred.make<void>(), yield* Deferred.make<void>()]
        const ada = person({ email: "ada@example.com" })
        const first = yield* Effect.fork(
          tx.run(
            Effect.gen(function* () {
              yield* tx.lockKey(a.id, key)
              yield* step("first holds")
              yield* Deferred.succeed(held, undefined)
              // A lock that holds nobody lets the second in, ending the wait; one that holds waits it out.
              yield* Effect.raceFirst(Deferred.await(secondIn), Effect.sleep("200 millis"))
              yield* repo.insert(a.id, ada)
              yield* step("first ends")
            })
          )
        )
        yield* Deferred.await(held)
        const second = yield* Effect.fork(
          tx.run(
            Effect.gen(function* () {
              yield* tx.lockKey(a.id, key)
              yield* step("second holds")
              yield* Deferred.succeed(secondIn, undefined)
              return yield* repo.get(a.id, ada.id)
            })
          )
        )
        yield* Fiber.join(first)
        const seen = yield* Fiber.join(second)
        expect(yield* Ref.get(steps)).toEqual(["first holds", "first ends", "second holds"])
        // What the first wrote is there for the second: it took the lock after the COMMIT.
        expect(Option.isSome(seen)).toBe(true)
      })
    )

    concurrent(
      "concurrent inserts of one address: exactly one wins, the others name it",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const repo = yield* Contacts.ContactRepository
        const contenders = Array.from({ length: 20 }, () => person({ email: "same@example.com" }))
        const results = yield* Effect.forEach(
          contenders,
          (contact) => Effect.either(tx.run(repo.insert(a.id, contact))),
          { concurrency: "unbounded" }
        )
        const winners = contenders.filter((_, i) => Either.isRight(results[i]!))
        expect(winners).toHaveLength(1)
        for (const result of results) {
          if (Either.isLeft(result)) expectEmailTaken(result.left, winners[0]!.id)
        }
        expect(yield* repo.countLive(a.id)).toBe(1)
      }),
      120_000
    )
  })
}
