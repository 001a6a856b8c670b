/**
 * An organisation's people (issue 36), the rules first: roles and what each may do, the last
 * owner kept, and when sessions, invitations and mailed links end and failed sign-ins are
 * throttled. Users, sessions and the settings API build on these.
 */
export * from "./People/Expiry.js"
export * from "./People/Roles.js"
