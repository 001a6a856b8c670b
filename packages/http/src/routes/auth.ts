/**
 * Signing in and out, under `/auth/v1`: an organisation's people by email and password, a mailed
 * one-time link, a password reset or an invitation; then their session (its cookie, the person and
 * their organisations, their other sessions). The answers that begin a session set its cookie
 * (`crm_session`, HttpOnly, SameSite=Lax; Secure on an https site, which the edge adds), a new
 * token each time; signing out clears it. Every write here is refused from another site
 * (`VisitorGuard`, `SessionGuard`).
 */
import { People } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { z } from "zod"
import { type Area, named } from "../Area.js"
import type { ErrorCode } from "../ErrorStatus.js"
import { SESSION_COOKIE } from "../edge/authenticate.js"
import { noContent, ok, type Reply } from "../Reply.js"
import { type Failure, type ParamsOf, type Context as RouteContext, route, signedIn, visitor } from "../Route.js"

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

/**
 * A visitor's POST that begins a session (a password, a mailed link, a reset, an invitation): it
 * answers the session and sets its cookie.
 */
const beginsSession = <P extends string, B extends z.ZodType, Codes extends ErrorCode>(spec: {
  readonly path: P
  readonly operationId: string
  readonly summary: string
  readonly body: B
  readonly errors: ReadonlyArray<Codes>
  readonly begin: (
    people: Context.Tag.Service<People.People>,
    // As `route` types a handler's body: the conditional is how it reads a schema given as a type parameter.
    context: RouteContext<undefined, B extends z.ZodType ? z.output<B> : undefined, People.Client, ParamsOf<P, {}>>
  ) => Effect.Effect<People.SignedIn, Failure<Codes>>
}) =>
  route({
    method: "POST",
    path: spec.path,
    operationId: spec.operationId,
    tag,
    guard: visitor,
    summary: spec.summary,
    body: spec.body,
    success: {
      status: 200,
      schema: People.SessionInfo,
      description: "the person signed in, their organisations and roles, and the CSRF token; the cookie is set"
    },
    errors: spec.errors,
    handle: (context) => Effect.flatMap(People.People, (people) => spec.begin(people, context)).pipe(Effect.map(begun))
  })

/** A visitor's POST that asks for a mailed link: the answer is the same whether the address has an account. */
const mailsLink = (spec: {
  readonly path: string
  readonly operationId: string
  readonly summary: string
  readonly request: (
    people: Context.Tag.Service<People.People>,
    email: string,
    client: People.Client
  ) => Effect.Effect<void, Failure<"rate_limited">>
}) =>
  route({
    method: "POST",
    path: spec.path,
    operationId: spec.operationId,
    tag,
    guard: visitor,
    summary: spec.summary,
    body: People.LinkRequest,
    success: { status: 202, schema: People.LinkRequested, description: "the request is taken" },
    errors: ["rate_limited"],
    handle: ({ principal, body }) =>
      Effect.flatMap(People.People, (people) => spec.request(people, body.email, principal)).pipe(Effect.as(sent))
  })

export const authRoutes = [
  beginsSession({
    path: "/sign-in",
    operationId: "signIn",
    summary: `Sign in with email and password; a new session begins (Set-Cookie: ${SESSION_COOKIE}). A wrong password and an unknown address get the same 401 invalid_credentials. After ${People.MAX_FAILURES} failures within ${People.FAILURE_WINDOW_MS / 60_000} minutes for the address or from the client, 429 rate_limited with Retry-After`,
    body: People.SignIn,
    errors: ["invalid_credentials", "rate_limited"],
    begin: (people, { principal, body }) => people.signIn(body, principal)
  }),
  mailsLink({
    path: "/sign-in/link",
    operationId: "requestSignInLink",
    summary: `Mail a one-time sign-in link (valid ${People.LINK_MS / 60_000} minutes) to the address, when it has an account; the answer is the same either way. Throttled as signing in is`,
    request: (people, email, client) => people.requestSignInLink(email, client)
  }),
  beginsSession({
    path: "/sign-in/link/complete",
    operationId: "completeSignInLink",
    summary:
      "Sign in with the token of a mailed link (the `#sign-in=` part of its URL); a new session begins. A link works once: unknown, used or expired is 410 invalid_link",
    body: People.LinkUse,
    errors: ["invalid_link"],
    begin: (people, { principal, body }) => people.signInWithLink(body.token, principal)
  }),
  mailsLink({
    path: "/password-reset",
    operationId: "requestPasswordReset",
    summary: `Mail a one-time password reset link (valid ${People.LINK_MS / 60_000} minutes) to the address, when it has an account; the answer is the same either way. Throttled as signing in is`,
    request: (people, email, client) => people.requestPasswordReset(email, client)
  }),
  beginsSession({
    path: "/password-reset/complete",
    operationId: "completePasswordReset",
    summary:
      "Set a new password with the token of a mailed reset link (the `#reset=` part of its URL): every other session of the person ends, and a new one begins. A link works once: unknown, used or expired is 410 invalid_link",
    body: People.PasswordResetUse,
    errors: ["invalid_link"],
    begin: (people, { principal, body }) => people.resetPassword(body.token, body.password, principal)
  }),
  beginsSession({
    path: "/invitations/{token}/accept",
    operationId: "acceptInvitation",
    summary: `Accept an invitation with its token (the \`#invitation=\` part of its URL): the person's name and password are set (an address that has an account already must give its password), they join the organisation with the invited role, and a new session begins. Invitations last ${People.INVITATION_MS / 86_400_000} days and work once: unknown, used, revoked or expired is 410 invalid_link`,
    body: People.InvitationAccept,
    errors: ["invalid_link", "invalid_credentials", "rate_limited"],
    begin: (people, { principal, params, body }) => people.acceptInvitation(params.token, body, principal)
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
