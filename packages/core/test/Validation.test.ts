import { Contacts, Validation } from "@crm/core"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"

describe("Validation", () => {
  it("names each unknown field and each wrong one by its path", () => {
    const result = Validation.parse(Contacts.ContactCreate, { first_name: 1, extra: true, other: 2 })
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      expect(result.left.detail.map((issue) => issue.path).sort()).toEqual(["extra", "first_name", "other"])
      for (const issue of result.left.detail) expect(issue.message.length).toBeGreaterThan(0)
    }
  })

  it("tells an empty PATCH from a PATCH with an unknown field beside a known one", () => {
    const empty = Validation.parsePatch(Contacts.ContactPatch, { unknown: 1 })
    expect(Either.isLeft(empty) && empty.left._tag).toBe("NoFieldsToUpdate")
    const mixed = Validation.parsePatch(Contacts.ContactPatch, { first_name: "a", unknown: 1 })
    expect(Either.isLeft(mixed) && mixed.left._tag).toBe("ValidationFailed")
    const fine = Validation.parsePatch(Contacts.ContactPatch, { first_name: null })
    expect(Either.isRight(fine)).toBe(true)
  })
})
