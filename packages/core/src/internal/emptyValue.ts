/**
 * What does not count as a value where one is required (a record's required field, a stage's
 * required deal field): blank text, or a list of nothing.
 */
export const isEmptyValue = (value: unknown): boolean =>
  (typeof value === "string" && value.trim() === "") || (Array.isArray(value) && value.length === 0)
