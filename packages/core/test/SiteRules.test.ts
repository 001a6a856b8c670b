import { Bookings, Sites } from "@crm/core"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { PagePath, SectionTypes } = Sites

const segmentChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCZ0123456789-_".split(""))
const segment = fc.string({ unit: segmentChar, minLength: 1, maxLength: 12 })
const validPath = fc.array(segment, { maxLength: 5 })
const slashes = fc.string({ unit: fc.constantFrom("/"), minLength: 0, maxLength: 3 })

describe("PagePath.normalise", () => {
  it("examples", () => {
    expect(PagePath.normalise("/")).toEqual(Either.right("/"))
    expect(PagePath.normalise("")).toEqual(Either.right("/"))
    expect(PagePath.normalise("About/")).toEqual(Either.right("/about"))
    expect(PagePath.normalise("  /Blog//First-Post/ ")).toEqual(Either.right("/blog/first-post"))
    expect(PagePath.normalise("/sitemap.xml")).toEqual(Either.right("/sitemap.xml"))
    for (const bad of ["/a b", "/../etc", "/.hidden", "/a?b=1", "/über", "/a#x", "/x."]) {
      expect(Either.isLeft(PagePath.normalise(bad)), bad).toBe(true)
    }
    expect(Either.isLeft(PagePath.normalise(`/${"a".repeat(PagePath.MAX_LENGTH)}`))).toBe(true)
  })

  it("is idempotent, and its output is canonical: leading slash, lower case, no empty or trailing segment", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (input) => {
        Either.match(PagePath.normalise(input), {
          onLeft: () => undefined,
          onRight: (path) => {
            expect(PagePath.normalise(path)).toEqual(Either.right(path))
            expect(path.startsWith("/")).toBe(true)
            expect(path).toBe(path.toLowerCase())
            expect(path === "/" || !path.endsWith("/")).toBe(true)
            expect(path.includes("//")).toBe(false)
          }
        })
      })
    )
  })

  it("ignores case and extra slashes: every spelling of a valid path names the same page", () => {
    fc.assert(
      fc.property(validPath, slashes, slashes, (segments, before, after) => {
        const canonical = `/${segments.join("/").toLowerCase()}`
        const spelled = `${before}${segments.join("//")}${after}`
        expect(PagePath.normalise(spelled)).toEqual(Either.right(canonical))
        expect(PagePath.normalise(spelled.toUpperCase())).toEqual(Either.right(canonical))
      })
    )
  })
})

describe("SectionTypes.check", () => {
  it("accepts every catalogue example, and describes each type with a JSON schema", () => {
    const sections = SectionTypes.CATALOGUE.map((entry) => ({ type: entry.type, data: entry.example }))
    expect(Either.isRight(SectionTypes.check(sections))).toBe(true)
    for (const entry of SectionTypes.CATALOGUE) {
      const described = SectionTypes.describe(entry)
      expect(described.data_schema.type).toBe("object")
      expect(described.description.length).toBeGreaterThan(10)
    }
  })

  it("names the section and field of each issue, and an unknown type at .type", () => {
    const result = SectionTypes.check([
      { type: "text", data: { markdown: "ok" } },
      { type: "hero", data: { subheading: "no heading" } },
      { type: "carousel", data: {} },
      { type: "gallery", data: { images: [{ url: "ftp://x.example/a.png", alt: "a" }] } },
      { type: "cta", data: { label: "Go", url: "/x", colour: "red" } }
    ])
    const paths = Either.getLeft(result).pipe((issues) =>
      issues._tag === "Some" ? issues.value.map((i) => i.path) : []
    )
    expect(paths).toEqual([
      "sections.1.data.heading",
      "sections.2.type",
      "sections.3.data.images.0.url",
      "sections.4.data.colour"
    ])
  })

  it("hero: a call to action needs both label and url", () => {
    expect(Either.isLeft(SectionTypes.check([{ type: "hero", data: { heading: "Hi", cta_label: "Go" } }]))).toBe(true)
    expect(
      Either.isRight(SectionTypes.check([{ type: "hero", data: { heading: "Hi", cta_label: "Go", cta_url: "/go" } }]))
    ).toBe(true)
  })

  it("never throws, and accepts exactly what the type's schema accepts", () => {
    const type = fc.constantFrom(...SectionTypes.TYPES, "nope")
    fc.assert(
      fc.property(type, fc.jsonValue(), (t, data) => {
        const result = SectionTypes.check([{ type: t, data }])
        const entry = SectionTypes.find(t)
        expect(Either.isRight(result)).toBe(entry?.schema.safeParse(data).success === true)
        if (Either.isLeft(result)) {
          for (const issue of result.left) expect(issue.path.startsWith("sections.0.")).toBe(true)
        }
      })
    )
  })

  it("PageCreate reports section issues at REST paths", () => {
    const parsed = Sites.PageCreate.safeParse({
      site_id: crypto.randomUUID(),
      path: "/x",
      title: "X",
      sections: [
        { type: "text", data: { markdown: "fine" } },
        { type: "image", data: { url: "https://a.example/i.png" } }
      ]
    })
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual(["sections.1.data.alt"])
  })
})

describe("Bookings rules", () => {
  const questions: ReadonlyArray<Bookings.Question> = [
    { key: "topic", label: "Topic", required: true },
    { key: "notes", label: "Notes", required: false }
  ]

  it("answers: required present and non-blank, no undefined keys", () => {
    expect(Bookings.BookingAnswers.check(questions, { topic: "Pricing" })).toEqual([])
    expect(Bookings.BookingAnswers.check(questions, { topic: "  ", extra: 1 }).map((issue) => issue.path)).toEqual([
      "answers.topic",
      "answers.extra"
    ])
    expect(Bookings.BookingAnswers.check([], { a: "x" }).map((issue) => issue.path)).toEqual(["answers.a"])
  })

  it("status machine: finals are final; every allowed move is listed", () => {
    const statuses = ["pending", "confirmed", "cancelled", "completed", "no_show"] as const
    fc.assert(
      fc.property(fc.constantFrom(...statuses), fc.constantFrom(...statuses), (from, to) => {
        const moved = Bookings.BookingStates.transition(from, to)
        expect(Either.isRight(moved)).toBe(Bookings.BookingStates.TRANSITIONS[from].includes(to))
        if (Bookings.BookingStates.isFinal(from)) expect(Either.isLeft(moved)).toBe(true)
      })
    )
  })
})
