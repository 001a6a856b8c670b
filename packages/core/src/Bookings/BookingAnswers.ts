/**
 * Answers checked against the questions of the series booked: every required question answered (a
 * blank string is no answer), and no answer to a question the series does not ask. A booking without
 * a series has no questions, so any answer is refused. Pure: returns every issue at once.
 */
import type { ValidationIssue } from "../Errors.js"
import type { Answer, Question } from "./BookingSchemas.js"

const answered = (answer: Answer | undefined): boolean =>
  answer !== undefined && !(typeof answer === "string" && answer.trim() === "")

export const check = (
  questions: ReadonlyArray<Question>,
  answers: Readonly<Record<string, Answer>>
): ReadonlyArray<ValidationIssue> => {
  const asked = new Set(questions.map((question) => question.key))
  const undefinedKeys = Object.keys(answers)
    .filter((key) => !asked.has(key))
    .map((key) => ({
      path: `answers.${key}`,
      message:
        questions.length === 0
          ? "this booking asks no questions"
          : `not a question of the series; one of ${[...asked].join(", ")}`,
      code: "unknown_question"
    }))
  const missing = questions
    .filter((question) => question.required && !answered(answers[question.key]))
    .map((question) => ({ path: `answers.${question.key}`, message: `required: ${question.label}`, code: "required" }))
  return [...missing, ...undefinedKeys]
}
