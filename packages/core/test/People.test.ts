import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { People } from "../src/index.js"

type Role = People.Role
const ROLES: ReadonlyArray<Role> = ["owner", "admin", "member"]
const outcome = (result: Either.Either<void, People.Refusal>) => (Either.isRight(result) ? "ok" : result.left)

describe("the role matrix", () => {
  // Written out as the README states it, cell by cell: the implementation's table must agree.
  const expected: Record<People.Action, Record<Role, boolean>> = {
    "settings:read": { owner: true, admin: true, member: true },
    "settings:write": { owner: true, admin: true, member: false },
    "hooks:manage": { owner: true, admin: true, member: false },
    "keys:manage_any": { owner: true, admin: true, member: false },
    "keys:manage_own": { owner: true, admin: true, member: true },
    "people:invite": { owner: true, admin: true, member: false },
    "audit:read": { owner: true, admin: true, member: false }
  }
  for (const [action, byRole] of Object.entries(expected)) {
    for (const role of ROLES) {
      it(`${role} ${byRole[role] ? "may" : "may not"} ${action}`, () => {
        expect(People.may(role, action as People.Action)).toBe(byRole[role])
      })
    }
  }

  it("lets members give their keys read and write only; owners and admins any scope", () => {
    expect(outcome(People.mayGrantScopes("member", ["read", "write"]))).toBe("ok")
    expect(outcome(People.mayGrantScopes("member", ["read", "invoices:write"]))).toBe("scope_not_allowed")
    expect(outcome(People.mayGrantScopes("member", ["analytics:write"]))).toBe("scope_not_allowed")
    for (const role of ["owner", "admin"] as const) {
      expect(outcome(People.mayGrantScopes(role, ["read", "write", "quotes:write", "invoices:write"]))).toBe("ok")
    }
  })

  it("lets members manage only the keys they created", () => {
    expect(outcome(People.mayManageKey("member", true))).toBe("ok")
    expect(outcome(People.mayManageKey("member", false))).toBe("forbidden")
    for (const role of ["owner", "admin"] as const) {
      expect(outcome(People.mayManageKey(role, false))).toBe("ok")
      expect(outcome(People.mayManageKey(role, true))).toBe("ok")
    }
  })
})

describe("changing a role", () => {
  // actor, from → to, with two owners: every cell.
  const withTwoOwners: Record<Role, Record<string, string>> = {
    owner: {
      "owner→owner": "ok",
      "owner→admin": "ok",
      "owner→member": "ok",
      "admin→owner": "ok",
      "admin→admin": "ok",
      "admin→member": "ok",
      "member→owner": "ok",
      "member→admin": "ok",
      "member→member": "ok"
    },
    admin: {
      "owner→owner": "owner_only",
      "owner→admin": "owner_only",
      "owner→member": "owner_only",
      "admin→owner": "owner_only",
      "admin→admin": "ok",
      "admin→member": "ok",
      "member→owner": "owner_only",
      "member→admin": "ok",
      "member→member": "ok"
    },
    member: {
      "owner→owner": "forbidden",
      "owner→admin": "forbidden",
      "owner→member": "forbidden",
      "admin→owner": "forbidden",
      "admin→admin": "forbidden",
      "admin→member": "forbidden",
      "member→owner": "forbidden",
      "member→admin": "forbidden",
      "member→member": "forbidden"
    }
  }
  for (const actor of ROLES) {
    for (const [change, result] of Object.entries(withTwoOwners[actor])) {
      const [from, to] = change.split("→") as [Role, Role]
      it(`${actor}: ${change} with two owners is ${result}`, () => {
        expect(outcome(People.changeRole(actor, from, to, 2))).toBe(result)
      })
    }
  }

  it("never demotes the last owner, not even by themselves", () => {
    expect(outcome(People.changeRole("owner", "owner", "admin", 1))).toBe("last_owner")
    expect(outcome(People.changeRole("owner", "owner", "member", 1))).toBe("last_owner")
    expect(outcome(People.changeRole("owner", "owner", "owner", 1))).toBe("ok")
  })
})

describe("leaving and removing", () => {
  it("lets anyone leave but the last owner", () => {
    for (const role of ROLES) expect(outcome(People.mayRemove(role, role, true, 2))).toBe("ok")
    expect(outcome(People.mayRemove("owner", "owner", true, 1))).toBe("last_owner")
  })

  it("lets owners remove anyone, admins anyone but owners, members no one", () => {
    for (const target of ROLES) expect(outcome(People.mayRemove("owner", target, false, 2))).toBe("ok")
    expect(outcome(People.mayRemove("admin", "owner", false, 2))).toBe("owner_only")
    expect(outcome(People.mayRemove("admin", "admin", false, 2))).toBe("ok")
    expect(outcome(People.mayRemove("admin", "member", false, 2))).toBe("ok")
    for (const target of ROLES) expect(outcome(People.mayRemove("member", target, false, 2))).toBe("forbidden")
    expect(outcome(People.mayRemove("owner", "owner", false, 1))).toBe("last_owner")
  })
})

describe("an organisation's people under any sequence of changes", () => {
  const step = fc.oneof(
    fc.record({
      kind: fc.constant("change" as const),
      actor: fc.nat(7),
      target: fc.nat(7),
      to: fc.constantFrom(...ROLES)
    }),
    fc.record({ kind: fc.constant("remove" as const), actor: fc.nat(7), target: fc.nat(7) })
  )
  const start = fc
    .array(fc.constantFrom(...ROLES), { minLength: 1, maxLength: 8 })
    .map((roles) => ["owner" as Role, ...roles])

  it("always keeps an owner, and only owners ever touch an owner", () => {
    fc.assert(
      fc.property(start, fc.array(step, { maxLength: 60 }), (initial, steps) => {
        const people = [...initial]
        for (const s of steps) {
          if (people.length === 0) break
          const actor = s.actor % people.length
          const target = s.target % people.length
          const owners = people.filter((role) => role === "owner").length
          const actorRole = people[actor]!
          const targetRole = people[target]!
          if (s.kind === "change") {
            const allowed = Either.isRight(People.changeRole(actorRole, targetRole, s.to, owners))
            if (allowed) {
              if (targetRole === "owner" || s.to === "owner") expect(actorRole).toBe("owner")
              expect(actorRole).not.toBe("member")
              people[target] = s.to
            }
          } else {
            const allowed = Either.isRight(People.mayRemove(actorRole, targetRole, actor === target, owners))
            if (allowed) {
              if (actor !== target) expect(actorRole).not.toBe("member")
              if (targetRole === "owner" && actor !== target) expect(actorRole).toBe("owner")
              people.splice(target, 1)
            }
          }
          expect(people.filter((role) => role === "owner").length).toBeGreaterThanOrEqual(1)
        }
      })
    )
  })
})

describe("sessions, links and throttling", () => {
  const HOUR = 3_600_000
  it("ends a session unused for 12 hours, or 14 days after sign-in however used, or when revoked", () => {
    const at = 1_000_000_000_000
    expect(People.sessionState({ created_at: at, last_used_at: at, revoked_at: null }, at + 12 * HOUR - 1)).toBe("live")
    expect(People.sessionState({ created_at: at, last_used_at: at, revoked_at: null }, at + 12 * HOUR)).toBe("idle")
    const busy = { created_at: at, last_used_at: at + 14 * 24 * HOUR - 1, revoked_at: null }
    expect(People.sessionState(busy, at + 14 * 24 * HOUR - 1)).toBe("live")
    expect(People.sessionState(busy, at + 14 * 24 * HOUR)).toBe("expired")
    expect(People.sessionState({ created_at: at, last_used_at: at, revoked_at: at + 1 }, at + 2)).toBe("revoked")
  })

  it("keeps an invitation 7 days and any link good once", () => {
    const at = 1_000_000_000_000
    const fresh = { created_at: at, used_at: null, revoked_at: null }
    expect(People.linkState(fresh, People.INVITATION_MS, at + 7 * 24 * HOUR - 1)).toBe("pending")
    expect(People.linkState(fresh, People.INVITATION_MS, at + 7 * 24 * HOUR)).toBe("expired")
    expect(People.linkState({ ...fresh, used_at: at + 1 }, People.INVITATION_MS, at + 2)).toBe("used")
    expect(People.linkState({ ...fresh, revoked_at: at + 1 }, People.INVITATION_MS, at + 2)).toBe("revoked")
    expect(People.linkState(fresh, People.LINK_MS, at + People.LINK_MS)).toBe("expired")
  })

  it("refuses the eleventh failure in fifteen minutes until the oldest counted one leaves the window", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 60 * 60 * 1000 }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 60 * 60 * 1000 }),
        (failures, now) => {
          const recent = failures.filter((at) => at <= now && now - at < People.FAILURE_WINDOW_MS)
          const decision = People.throttle(failures, now)
          expect(decision.allowed).toBe(recent.length < People.MAX_FAILURES)
          if (!decision.allowed) {
            // Waiting as told, at least one counted failure has left the window.
            const later = now + decision.retryAfterSeconds * 1000
            expect(
              People.throttle(
                failures.filter((at) => at <= now),
                later
              ).allowed
            ).toBe(true)
            expect(decision.retryAfterSeconds).toBeLessThanOrEqual(People.FAILURE_WINDOW_MS / 1000)
          }
        }
      )
    )
  })
})
