import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

// The workspace packages' `exports` name their TypeScript sources under the `@crm/source`
// condition (and their built `dist/` for everyone else): tests run on the sources.
const conditions = ["@crm/source", ...defaultServerConditions]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@crm/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "test/bench/**"],
    // Each store's template is migrated once per run, before the workers start (a fresh process
    // per file): a fresh store is then a copy, not initdb and every migration again.
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } }
  }
})
