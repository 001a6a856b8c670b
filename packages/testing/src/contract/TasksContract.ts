/**
 * The task port (`TaskRepository`): rows round-trip whole, lists filter and page, and
 * `getForUpdate` holds a task until its unit of work commits.
 */
import { Organisation, Tasks } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import {
  at,
  expectHeldUntilCommit,
  ids,
  newestFirst,
  newId,
  page,
  type StoragePorts,
  seed,
  todo,
  uuid
} from "./Fixtures.js"

type Task = Tasks.Task

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`TaskRepository storage contract: ${name}`, () => {
    test(
      "round-trips every field, and only within its organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Tasks.TaskRepository
        const full = todo({
          title: "Send the offer",
          type: "email",
          priority: "urgent",
          due_at: at(86_400_000),
          done: true,
          completed_at: at(5),
          assignee_id: newId(Organisation.UserId),
          entity_type: "deal",
          entity_id: uuid(),
          description: "with the volume discount\nand the SLA",
          created_at: at(1),
          updated_at: at(5)
        })
        const bare = todo({ created_at: at(2), updated_at: at(2) })
        yield* repo.insert(a.id, full)
        yield* repo.insert(a.id, bare)
        expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(full)
        expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, full.id))).toEqual(full)
        expect(Option.getOrThrow(yield* repo.get(a.id, bare.id))).toEqual(bare)
        expect(yield* repo.list(a.id, {}, page(50))).toEqual([bare, full])

        expect(Option.isNone(yield* repo.get(b.id, full.id))).toBe(true)
        expect(Option.isNone(yield* repo.getForUpdate(b.id, full.id))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, newId(Tasks.TaskId)))).toBe(true)
        expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
      })
    )

    test(
      "update replaces the fields; archive hides the task from get, getForUpdate and list; neither crosses organisations",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Tasks.TaskRepository
        const task = todo({ title: "Call Ann", created_at: at(1), updated_at: at(1) })
        const other = todo({ title: "Other", created_at: at(2), updated_at: at(2) })
        yield* repo.insert(a.id, task)
        yield* repo.insert(a.id, other)

        const completed: Task = {
          ...task,
          title: "Call Ann about the renewal",
          type: "call",
          priority: "high",
          due_at: at(100),
          done: true,
          completed_at: at(50),
          assignee_id: newId(Organisation.UserId),
          entity_type: "contact",
          entity_id: uuid(),
          description: "she prefers mornings",
          updated_at: at(50)
        }
        yield* repo.update(a.id, completed)
        expect(Option.getOrThrow(yield* repo.get(a.id, task.id))).toEqual(completed)
        const reopened: Task = { ...completed, done: false, due_at: null, entity_type: null, entity_id: null }
        yield* repo.update(a.id, reopened)
        expect(Option.getOrThrow(yield* repo.get(a.id, task.id))).toEqual(reopened)

        yield* Effect.either(repo.update(b.id, { ...reopened, title: "Hijacked" }))
        expect(Option.getOrThrow(yield* repo.get(a.id, task.id))).toEqual(reopened)
        expect(yield* repo.archive(b.id, task.id, at(60))).toBe(false)

        expect(yield* repo.archive(a.id, task.id, at(60))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, task.id))).toBe(true)
        expect(Option.isNone(yield* repo.getForUpdate(a.id, task.id))).toBe(true)
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([other.id])
        expect(yield* repo.archive(a.id, task.id, at(61))).toBe(false)
        expect(yield* repo.archive(a.id, newId(Tasks.TaskId), at(61))).toBe(false)

        yield* Effect.either(repo.update(a.id, { ...reopened, title: "Ghost", updated_at: at(62) }))
        expect(Option.isNone(yield* repo.get(a.id, task.id))).toBe(true)
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([other.id])
      })
    )

    test(
      "list filters: done, priority, assignee_id, entity_id, each alone and combined",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Tasks.TaskRepository
        const [eve, max, deal, contact] = [newId(Organisation.UserId), newId(Organisation.UserId), uuid(), uuid()]
        const t1 = todo({ assignee_id: eve, entity_type: "deal", entity_id: deal, created_at: at(1) })
        const t2 = todo({
          priority: "high",
          assignee_id: max,
          entity_type: "deal",
          entity_id: deal,
          created_at: at(2)
        })
        const t3 = todo({
          priority: "high",
          done: true,
          completed_at: at(30),
          assignee_id: eve,
          entity_type: "contact",
          entity_id: contact,
          created_at: at(3)
        })
        const t4 = todo({ priority: "low", done: true, completed_at: at(40), created_at: at(4) })
        const gone = todo({ assignee_id: eve, entity_type: "deal", entity_id: deal, created_at: at(5) })
        for (const task of [t1, t2, t3, t4, gone]) yield* repo.insert(a.id, task)
        yield* repo.insert(b.id, todo({ assignee_id: eve, entity_type: "deal", entity_id: deal, created_at: at(6) }))
        expect(yield* repo.archive(a.id, gone.id, at(50))).toBe(true)

        const list = (filter: Tasks.TaskFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
        expect(yield* list({})).toEqual(ids([t4, t3, t2, t1]))
        expect(yield* list({ done: false })).toEqual(ids([t2, t1]))
        expect(yield* list({ done: true })).toEqual(ids([t4, t3]))
        expect(yield* list({ priority: "high" })).toEqual(ids([t3, t2]))
        expect(yield* list({ priority: "normal" })).toEqual([t1.id])
        expect(yield* list({ priority: "urgent" })).toEqual([])
        expect(yield* list({ assigneeId: eve })).toEqual(ids([t3, t1]))
        expect(yield* list({ assigneeId: newId(Organisation.UserId) })).toEqual([])
        expect(yield* list({ entityId: deal })).toEqual(ids([t2, t1]))
        expect(yield* list({ entityId: contact })).toEqual([t3.id])
        expect(yield* list({ done: false, priority: "high" })).toEqual([t2.id])
        expect(yield* list({ done: true, assigneeId: eve })).toEqual([t3.id])
        expect(yield* list({ entityId: deal, assigneeId: eve, done: false, priority: "normal" })).toEqual([t1.id])
        expect(yield* list({ entityId: deal, assigneeId: eve, done: true })).toEqual([])
      })
    )

    test(
      "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Tasks.TaskRepository
        const tasks = [3, 7, 3, 3, 0, 7].map((t, i) => todo({ title: `T${i}`, created_at: at(t) }))
        for (const task of tasks) yield* repo.insert(a.id, task)
        const expected = ids(newestFirst(tasks))
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual(expected)
        expect(ids(yield* repo.list(a.id, {}, page(2)))).toEqual(expected.slice(0, 3))
        expect(ids(yield* repo.list(a.id, {}, page(2, 2)))).toEqual(expected.slice(2, 5))
        expect(ids(yield* repo.list(a.id, {}, page(2, 4)))).toEqual(expected.slice(4))
        expect(ids(yield* repo.list(a.id, {}, page(2, 6)))).toEqual([])
        expect(ids(yield* repo.list(a.id, { done: false }, page(3, 1)))).toEqual(expected.slice(1, 5))
      })
    )

    concurrent(
      "getForUpdate in a unit of work holds the task until the unit commits",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Tasks.TaskRepository
        const task = todo({ title: "Contended" })
        yield* repo.insert(a.id, task)
        const completed = { ...task, done: true, completed_at: at(1), updated_at: at(1) }
        yield* expectHeldUntilCommit(repo.getForUpdate(a.id, task.id), repo.update(a.id, completed), task, completed)
        expect(Option.getOrThrow(yield* repo.get(a.id, task.id))).toEqual(completed)
      })
    )
  })
}
