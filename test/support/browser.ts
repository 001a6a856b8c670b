/**
 * Headless Chromium for the page tests: the system's own (Debian's `chromium` package, or
 * CHROMIUM_PATH), driven by playwright-core, which never downloads a browser. Each launch gets a
 * profile of its own, removed at close. Without a Chromium the suites skip, saying why.
 */
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as StorageMemory from "@crm/storage-memory"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { startServer, type TestServer } from "./server.js"

const chromiumPath = (): string | undefined => {
  const given = process.env.CHROMIUM_PATH
  if (given !== undefined && given !== "") return existsSync(given) ? given : undefined
  return existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined
}

export const CHROMIUM = chromiumPath()

/** Why the browser suites skip, or undefined when they run; part of the suite's name, so the report shows it. */
export const NO_CHROMIUM =
  CHROMIUM === undefined
    ? `skipped: no Chromium at ${process.env.CHROMIUM_PATH || "/usr/bin/chromium"} (apt-get install chromium, or set CHROMIUM_PATH)`
    : undefined

if (NO_CHROMIUM !== undefined) console.warn(`browser tests ${NO_CHROMIUM}`)

/** Nothing but the page under test: no first-run pages, no update checks, no sync, no other traffic. */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

export interface Browser {
  readonly context: BrowserContext
  readonly page: () => Promise<Page>
  readonly close: () => Promise<void>
}

export const launch = async (): Promise<Browser> => {
  if (CHROMIUM === undefined) throw new Error(`browser tests ${NO_CHROMIUM}`)
  const profile = await mkdtemp(join(tmpdir(), "crm-chromium-"))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 }
  })
  return {
    context,
    page: () => context.newPage(),
    close: async () => {
      await context.close()
      await rm(profile, { recursive: true, force: true })
    }
  }
}

/**
 * The server the pages are tested against: the memory store, with the webhook worker polling often
 * and allowed to deliver to a local receiver.
 */
export const startPageServer = (): Promise<TestServer> =>
  startServer(StorageMemory.layer, { webhooks: { pollIntervalMs: 25, allowPrivateTargets: true, timeoutMs: 2000 } })

/** What pages asked of other origins (each request refused), and their errors and policy violations. */
export interface Seen {
  readonly external: Array<string>
  readonly errors: Array<string>
}

/**
 * A new page of `browser` that may reach only the origin of `url`: what it asks of any other
 * (its workers' requests too) and its errors, Content-Security-Policy violations included, go to
 * `seen`, which several pages may share.
 */
export const watchedPage = async (browser: Browser, url: string, seen: Seen): Promise<Page> => {
  const origin = new URL(url).origin
  await browser.context.route("**/*", (route) => {
    const requested = route.request().url()
    if (new URL(requested).origin === origin) return route.continue()
    seen.external.push(requested)
    return route.abort()
  })
  const page = await browser.page()
  page.on("pageerror", (error) => seen.errors.push(error.message))
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) seen.errors.push(message.text())
  })
  return page
}

/** Where screenshots go (gitignored): CI keeps them as the run's artifacts. */
export const ARTIFACTS = join(import.meta.dirname, "..", "artifacts")

export const screenshot = async (page: Page, name: string, options: { readonly fullPage?: boolean } = {}) => {
  await mkdir(ARTIFACTS, { recursive: true })
  const path = join(ARTIFACTS, `${name}.png`)
  await page.screenshot({ path, fullPage: options.fullPage ?? true })
  return path
}
