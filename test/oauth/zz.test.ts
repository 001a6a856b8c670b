import * as StorageMemory from "@crm/storage-memory"
import { it } from "vitest"
import { startServer } from "../support/server.js"
import { register } from "./support.js"
it("x", async () => {
  const server = await startServer(StorageMemory.layer)
  for (const b of ["[]", '"x"', "null", "42", JSON.stringify({redirect_uris: []}), JSON.stringify({}), JSON.stringify({redirect_uris:["not a url"]}), JSON.stringify({redirect_uris:["http://a.example/cb"]}), JSON.stringify({redirect_uris:["https://a.example/cb"], response_types:["token"]})]) {
    const a = await register(server, b); console.log(b, a.status, a.text)
  }
  await server.close()
})
