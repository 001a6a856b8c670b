/**
 * Signing in and out, under `/auth/v1`: an organisation's people by email and password, a mailed
 * one-time link, a password reset or an invitation; then their session (its cookie, the person and
 * their organisations, their other sessions). The answers that begin a session set its cookie
 * (`crm_session`, HttpOnly, SameSite=Lax; Secure on an https site, which the edge adds), a new
 * token each time; signing out clears it. Every write here is refused from another site
 * (`VisitorGuard`, `SessionGuard`).
 */
import { People } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import { SESSION_COOKIE } from "../edge/authenticate.js"
import { noContent, ok, type Reply } from "../Reply.js"
import { route, signedIn, visitor } from "../Route.js"

const tag = "auth"

const ATTRIBUTES = "Path=/; HttpOnly; SameSite=Lax"

/** The cookie of a session begun: it lives as long as the session may (its absolute expiry). */
export const sessionCookie = (token: string): string =>
  `${SESSION_COOKIE}=${token}; ${ATTRIBUTES}; Max-Age=${People.SESSION_ABSOLUTE_MS / 1000}`

/** The cookie cleared: what a browser holds of it goes. */
export const clearedCookie = `${SESSION_COOKIE}=; ${ATTRIBUTES}; Max-Age=0`

const begun = (signed: People.SignedIn): Reply<People.SessionInfo> => ({
  status: 200,
  body: signed.info,
  headers: { "set-cookie": sessionCookie(signed.token) }
})

const sent = { status: 202, body: { sent: true as const } }

const SESSION_ANSWER = "the person signed in, their organisations and roles, and the CSRF token; the cookie is set"

export const authRoutes = [
  route({
    method: "POST",
    path: "/sign-in",
    operationId: "signIn",
    tag,
    guard: visitor,
    summary: `Sign in with email and password; a new session begins (Set-Cookie: ${SESSION_COOKIE}). A wrong password and an unknown address get the same 401 invalid_credentials. After ${People.MAX_FAILURES} failures within ${People.FAILURE_WINDOW_MS / 60_000} minutes for the address or from the client, 429 rate_limited with Retry-After`,
    body: People.SignIn,
    success: { status: 200, schema: People.SessionInfo, description: SESSION_ANSWER },
    errors: ["invalid_credentials", "rate_limited"],
    handle: ({ principal, body }) =>
      Effect.flatMap(People.People, (people) => people.signIn(body, principal)).pipe(Effect.map(begun))
  }),
  route({
    method: "POST",
    path: "/sign-in/link",
    operationId: "requestSignInLink",
    tag,
    guard: visitor,
    summary: `Mail a one-time sign-in link (valid ${People.LINK_MS / 60_000} minutes) to the address, when it has an account; the answer is the same either way. Throttled as signing in is`,
    body: People.LinkRequest,
    success: { status: 202, schema: People.LinkRequested, description: "the request is taken" },
    errors: ["rate_limited"],
    handle: ({ principal, body }) =>
      Effect.flatMap(People.People, (people) => people.requestSignInLink(body.email, principal)).pipe(Effect.as(sent))
  }),
  route({
    method: "POST",
    path: "/sign-in/link/complete",
    operationId: "completeSignInLink",
    tag,
    guard: visitor,
    summary:
      "Sign in with the token of a mailed link (the `#sign-in=` part of its URL); a new session begins. A link works once: unknown, used or expired is 410 invalid_link",
    body: People.LinkUse,
    success: { status: 200, schema: People.SessionInfo, description: SESSION_ANSWER },
    errors: ["invalid_link"],
    handle: ({ principal, body }) =>
      Effect.flatMap(People.People, (people) => people.signInWithLink(body.token, principal)).pipe(Effect.map(begun))
  }),
  route({
    method: "POST",
    path: "/password-reset",
    operationId: "requestPasswordReset",
    tag,
    guard: visitor,
    summary: `Mail a one-time password reset link (valid ${People.LINK_MS / 60_000} minutes) to the address, when it has an account; the answer is the same either way. Throttled as signing in is`,
    body: People.LinkRequest,
    success: { status: 202, schema: People.LinkRequested, description: "the request is taken" },
    errors: ["rate_limited"],
    handle: ({ principal, body }) =>
      Effect.flatMap(People.People, (people) => people.requestPasswordReset(body.email, principal)).pipe(
        Effect.as(sent)
      )
  }),
  route({
    method: "POST",
    path: "/password-reset/complete",
    operationId: "completePasswordReset",
    tag,
    guard: visitor,
    summary:
      "Set a new password with the token of a mailed reset link (the `#reset=` part of its URL): every other session of the person ends, and a new one begins. A link works once: unknown, used or expired is 410 invalid_link",
    body: People.PasswordResetUse,
    success: { status: 200, schema: People.SessionInfo, description: SESSION_ANSWER },
    errors: ["invalid_link"],
    handle: ({ principal, body }) =>
      Effect.flatMap(People.People, (people) => people.resetPassword(body.token, body.password, principal)).pipe(
        Effect.map(begun)
      )
  }),
  route({
    method: "POST",
    path: "/invitations/{token}/accept",
    operationId: "acceptInvitation",
    tag,
    guard: visitor,
    summary: `Accept an invitation with its token (the \`#invitation=\` part of its URL): the person's name and password are set (an address that has an account already must give its password), they join the organisation with the invited role, and a new session begins. Invitations last ${People.INVITATION_MS / 86_400_000} days and work once: unknown, used, revoked or expired is 410 invalid_link`,
    body: People.InvitationAccept,
    success: { status: 200, schema: People.SessionInfo, description: SESSION_ANSWER },
    errors: ["invalid_link", "invalid_credentials", "rate_limited"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(People.People, (people) => people.acceptInvitation(params.token, body, principal)).pipe(
        Effect.map(begun)
      )
  }),
  route({
    method: "POST",
    path: "/sign-out",
    operationId: "signOut",
    tag,
    guard: signedIn,
    summary: "End this session, or with everywhere: true every session of the person; the cookie is cleared",
    body: People.SignOut,
    optionalBody: true,
    success: { status: 204, description: "signed out" },
    errors: [],
    handle: ({ principal, body }) =>
      Effect.flatMap(People.People, (people) => people.signOut(principal, body.everywhere)).pipe(
        Effect.as({ status: 204, headers: { "set-cookie": clearedCookie } })
      )
  }),
  route({
    method: "GET",
    path: "/session",
    operationId: "getSession",
    tag,
    guard: signedIn,
    summary: "Who is signed in: the person, their organisations with their role in each, and the CSRF token",
    success: { status: 200, schema: People.SessionInfo, description: "the session" },
    errors: [],
    handle: ({ principal }) =>
      Effect.flatMap(People.People, (people) => people.sessionInfo(principal)).pipe(Effect.map(ok))
  }),
  route({
    method: "GET",
    path: "/sessions",
    operationId: "listSessions",
    tag,
    guard: signedIn,
    summary: "The person's live sessions, newest first, with the browser and address of each and its last use",
    success: { status: 200, schema: People.SessionList, description: "the sessions" },
    errors: [],
    handle: ({ principal }) =>
      Effect.flatMap(People.People, (people) => people.sessions(principal)).pipe(Effect.map((data) => ok({ data })))
  }),
  route({
    method: "DELETE",
    path: "/sessions/{id}",
    params: { id: People.SessionId },
    operationId: "revokeSession",
    tag,
    guard: signedIn,
    summary:
      "End one of the person's sessions (on another device, say), at once; ending this one clears the cookie as signing out does",
    success: { status: 204, description: "ended" },
    errors: ["not_found"],
    handle: ({ principal, params }) =>
      Effect.flatMap(People.People, (people) => people.revokeSession(principal, params.id)).pipe(
        Effect.as(
          params.id === principal.session.id ? { status: 204, headers: { "set-cookie": clearedCookie } } : noContent
        )
      )
  })
]

export const authArea: Area = {
  auth: authRoutes,
  schemaNames: named(
    People,
    "SessionInfo",
    "Person",
    "MembershipOf",
    "SignIn",
    "LinkRequest",
    "LinkRequested",
    "LinkUse",
    "PasswordResetUse",
    "InvitationAccept",
    "SignOut",
    "SessionView",
    "SessionList",
    "Role"
  )
}
