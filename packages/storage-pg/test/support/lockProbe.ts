/**
 * A process for DataDirLock's tests: says "ready", tries to take the lock of the data directory
 * named by its argument when a line arrives on stdin, says how that went, and holds what it won
 * until stdin closes.
 */
import { createInterface } from "node:readline"
import { acquireSync, DataDirLocked } from "../../src/DataDirLock.js"

const dataDir = process.argv[2]
if (dataDir === undefined) throw new Error("usage: lockProbe <dataDir>")
const lines = createInterface({ input: process.stdin })
lines.once("line", () => {
  try {
    acquireSync(dataDir)
    process.stdout.write("won\n")
  } catch (error) {
    if (!(error instanceof DataDirLocked)) throw error
    process.stdout.write(`refused ${JSON.stringify(error.holder ?? null)}\n`)
  }
})
process.stdout.write("ready\n")
