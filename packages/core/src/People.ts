/**
 * An organisation's people (issue 36): roles and what each may do, the last owner kept, when
 * sessions, invitations and mailed links end and failed sign-ins are throttled; the accounts,
 * sessions, invitations and audit trail behind them (ports), and the service the `/auth/v1` and
 * `/settings/v1` routes call.
 */
export * from "./People/Actor.js"
export * from "./People/AuditLog.js"
export * from "./People/Expiry.js"
export * from "./People/PasswordHasher.js"
export * from "./People/PeopleLive.js"
export * from "./People/PeopleRepository.js"
export * from "./People/PeopleSchemas.js"
export * from "./People/PeopleService.js"
export * from "./People/Roles.js"
export * as Tokens from "./People/Tokens.js"
