import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

// The workspace packages' `exports` name their TypeScript sources under the `@crm/source`
// condition (and their built `dist/` for everyone else): tests run on the sources.
const conditions = ["@crm/source", ...defaultServerConditions]

const include = ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"]
const exclude = ["**/node_modules/**", "test/bench/**"]

/**
 * Files that test what happens the first time in a process: FiberRoots swaps Effect's
 * process-wide set of root fibers once, when the server asks for it, and its test reads the set
 * and starts fibers before that swap, which a server started by an earlier file in the same worker
 * would already have made.
 */
const freshProcess = ["test/http/fiberRoots.test.ts"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@crm/source"] } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    setupFiles: ["test/support/effectVitest.ts"],
    // A worker runs file after file in one process, so the kernel is imported once per worker
    // rather than once per file (about a third of the suite's CPU time). Every suite still starts
    // its own server on an empty store; what a process shares is what the kernel shares when it
    // embeds several servers, which the suites do already.
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
    projects: [
      {
        extends: true,
        test: {
          name: "kernel",
          include,
          exclude: [...exclude, ...freshProcess],
          // Each store's template is migrated once per run, before the workers start: a fresh
          // store is then a copy, not initdb and every migration again.
          globalSetup: ["test/support/globalSetup.ts"]
        }
      },
      // Each of these in a worker thread of its own (isolated, as threads are by default): a new
      // V8 isolate, so Effect's process-wide values start as a fresh process's do.
      { extends: true, test: { name: "fresh process", include: freshProcess, pool: "threads" } }
    ]
  }
})
