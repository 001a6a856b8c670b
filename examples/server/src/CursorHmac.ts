/**
 * Node's synchronous HMAC for the kernel's cursors (`Cursors.CursorHmac`): the same bytes as the
 * core's Web Crypto one, without an asynchronous thread-pool job on every list page that has more.
 */
import { createHmac, createSecretKey } from "node:crypto"
import { Cursors } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const node: Cursors.CursorHmac["Type"] = {
  keyed: (secret) =>
    Effect.sync(() => {
      const key = createSecretKey(secret)
      return (data) => Effect.sync(() => new Uint8Array(createHmac("sha256", key).update(data).digest()))
    })
}

export const layer = Layer.succeed(Cursors.CursorHmac, node)
