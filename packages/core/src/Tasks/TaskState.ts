/**
 * Task completion as pure rules: open → done stamps `completed_at` once; completing a done task
 * keeps the original time and is no change at all; reopening clears the stamp.
 */
import type { Task } from "./TaskSchemas.js"

export interface Outcome {
  readonly task: Task
  /** True only on the transition open → done: the one time `task.completed` is emitted. */
  readonly completed: boolean
}

export const complete = (task: Task, at: string): Outcome =>
  task.done ? { task, completed: false } : { task: { ...task, done: true, completed_at: at }, completed: true }

export const reopen = (task: Task): Task => ({ ...task, done: false, completed_at: null })

/** `done` as PATCH sends it: true completes, false reopens, absent keeps. */
export const setDone = (task: Task, done: boolean | undefined, at: string): Outcome =>
  done === true ? complete(task, at) : { task: done === false ? reopen(task) : task, completed: false }
