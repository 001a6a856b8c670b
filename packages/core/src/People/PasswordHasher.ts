/**
 * How passwords are hashed: a port, because a good hash is deliberately slow and must run off the
 * event loop (the server's is scrypt on node's thread pool, `ScryptPasswordHasher` in `@crm/http`).
 * `hash` gives a self-describing string (algorithm, parameters, salt, digest), so parameters can
 * change without invalidating stored hashes; `verify` reads them back from it.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export class PasswordHasher extends Context.Tag("@crm/core/PasswordHasher")<
  PasswordHasher,
  {
    readonly hash: (password: string) => Effect.Effect<string>
    /** False for a wrong password and for a stored value this hasher cannot read; never fails. */
    readonly verify: (password: string, stored: string) => Effect.Effect<boolean>
  }
>() {}
