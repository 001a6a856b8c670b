/**
 * The examples a user copies run as written: the embedded kernel on memory storage and the
 * property test driving it through `@crm/testing`, on the workspace's sources (`test/pack/run.sh`
 * runs them again from the packed tarballs, outside the repository, in CI).
 */
import { execFile } from "node:child_process"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { RUN_SOURCES } from "./support/sources.js"

const root = join(import.meta.dirname, "..")
const run = (file: string) =>
  promisify(execFile)(process.execPath, [...RUN_SOURCES, join(root, file)], {
    cwd: root
  })

describe("examples", () => {
  it("embedded: the kernel on memory storage creates a contact and reads it from the event log", async () => {
    const { stdout } = await run("examples/embedded/src/memory.ts")
    expect(stdout).toMatch(/^\d+ contact\.created ada@example\.com$/m)
  })

  it("property-test: a user's property suite through the kit passes", async () => {
    const { stdout } = await run("examples/property-test/src/property.ts")
    expect(stdout).toContain("property-test: the deals-and-tasks model and contact creation hold")
  })
})
