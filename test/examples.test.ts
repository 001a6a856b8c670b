/**
 * The examples a user copies run as written: the embedded kernel on memory storage and the
 * property test driving it through `@crm/testing`, bundled from the workspace's sources (`test/pack/run.sh`
 * runs them again from the packed tarballs, outside the repository, in CI).
 */
import { execFile } from "node:child_process"
import { join } from "node:path"
import { promisify } from "node:util"
import { beforeAll, describe, expect, it } from "vitest"
import { bundled } from "./support/sources.js"

const root = join(import.meta.dirname, "..")

describe("examples", () => {
  let built: Record<"memory" | "property", string>
  beforeAll(async () => {
    built = await bundled("examples", {
      memory: "embedded/src/memory.ts",
      property: "property-test/src/property.ts"
    })
  })
  const run = (name: keyof typeof built) => promisify(execFile)(process.execPath, [built[name]], { cwd: root })

  it("embedded: the kernel on memory storage creates a contact and reads it from the event log", async () => {
    const { stdout } = await run("memory")
    expect(stdout).toMatch(/^\d+ contact\.created ada@example\.com$/m)
  })

  it("property-test: a user's property suite through the kit passes", async () => {
    const { stdout } = await run("property")
    expect(stdout).toContain("property-test: the deals-and-tasks model and contact creation hold")
  })
})
