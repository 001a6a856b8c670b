/**
 * Node's synchronous SHA-256 for the kernel's API keys (`Access.KeyDigest`): the same hex as the
 * core's Web Crypto one, without an asynchronous thread-pool job for each key seen for the first
 * time (every key after a restart, each of thousands of customers' keys).
 */
import { createHash } from "node:crypto"
import { Access } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const node: Access.ApiKey.Digest = (text) => Effect.sync(() => createHash("sha256").update(text).digest("hex"))

export const layer = Layer.succeed(Access.ApiKey.KeyDigest, node)
