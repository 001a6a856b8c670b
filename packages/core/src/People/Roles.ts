/**
 * Who may do what in an organisation's settings, as pure rules: a user's role there (`owner`,
 * `admin`, `member`) against what they ask. Owners and admins manage keys, hooks, settings and
 * people; members see the settings and manage only the keys they created, with at most `read` and
 * `write`; only an owner makes, unmakes or removes an owner; the last owner can neither leave nor be
 * demoted, so an organisation always has someone who can manage it.
 */
import * as Either from "effect/Either"
import { z } from "zod"
import type { Scope } from "../Access/AccessSchemas.js"

export const Role = z.enum(["owner", "admin", "member"])
export type Role = z.infer<typeof Role>

/** What a person asks to do in the settings, beside changing people's roles (`changeRole`). */
export type Action =
  | "settings:read"
  | "settings:write"
  | "hooks:manage"
  | "keys:manage_any"
  | "keys:manage_own"
  | "people:invite"
  | "audit:read"

/** The matrix, as data: the README's table is this one. */
export const MATRIX: { readonly [A in Action]: { readonly [R in Role]: boolean } } = {
  "settings:read": { owner: true, admin: true, member: true },
  "settings:write": { owner: true, admin: true, member: false },
  "hooks:manage": { owner: true, admin: true, member: false },
  "keys:manage_any": { owner: true, admin: true, member: false },
  "keys:manage_own": { owner: true, admin: true, member: true },
  "people:invite": { owner: true, admin: true, member: false },
  "audit:read": { owner: true, admin: true, member: false }
}

export const may = (role: Role, action: Action): boolean => MATRIX[action][role]

/** Why a request about keys or people is refused; the transport gives each its code. */
export type Refusal =
  /** The role does not allow it at all. */
  | "forbidden"
  /** It makes, unmakes or removes an owner, which only an owner does. */
  | "owner_only"
  /** It would leave the organisation without an owner. */
  | "last_owner"
  /** A member's key may hold only these scopes. */
  | "scope_not_allowed"

/** The scopes a member's key may hold; owners and admins give any. */
export const MEMBER_SCOPES: ReadonlyArray<Scope> = ["read", "write"]

/** Whether a role may create a key with these scopes. */
export const mayGrantScopes = (role: Role, scopes: ReadonlyArray<Scope>): Either.Either<void, Refusal> =>
  role !== "member" || scopes.every((scope) => MEMBER_SCOPES.includes(scope))
    ? Either.void
    : Either.left("scope_not_allowed")

/** Whether a user may revoke or change a key: any key for owners and admins, their own for members. */
export const mayManageKey = (role: Role, isCreator: boolean): Either.Either<void, Refusal> =>
  may(role, "keys:manage_any") || (isCreator && may(role, "keys:manage_own")) ? Either.void : Either.left("forbidden")

/** Whether `actor` may give a person whose role is `from` the role `to`, with `owners` owners now. */
export const changeRole = (actor: Role, from: Role, to: Role, owners: number): Either.Either<void, Refusal> => {
  if (actor === "member") return Either.left("forbidden")
  if ((from === "owner" || to === "owner") && actor !== "owner") return Either.left("owner_only")
  if (from === "owner" && to !== "owner" && owners <= 1) return Either.left("last_owner")
  return Either.void
}

/**
 * Whether a person whose role is `target` may leave or be removed, by themselves (`self`) or by
 * someone whose role is `actor`, with `owners` owners now: anyone may leave but the last owner.
 */
export const mayRemove = (actor: Role, target: Role, self: boolean, owners: number): Either.Either<void, Refusal> => {
  if (target === "owner" && owners <= 1) return Either.left("last_owner")
  if (self) return Either.void
  if (actor === "member") return Either.left("forbidden")
  if (target === "owner" && actor !== "owner") return Either.left("owner_only")
  return Either.void
}
