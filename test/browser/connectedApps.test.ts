/**
 * "Connected apps" of `/settings` in headless Chromium, through the real server: the apps an owner
 * and a member connected, each name shown as the text the client chose (markup in it is not
 * markup); the member offered to revoke only their own; the owner revokes one after confirming,
 * and the list and the API say it is revoked.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectApp } from "../support/apps.js"
import {
  type Browser,
  launch,
  NO_CHROMIUM,
  type Seen,
  screenshot,
  startPageServer,
  watchedPage
} from "../support/browser.js"
import { type Joined, join, PASSWORD, withOwner } from "../support/people.js"
import type { TestServer } from "../support/server.js"

const HOSTILE = "<img src=x onerror=alert(1)>"
const CLIENT = "https://client.example/meta.json"

interface Signed extends Seen {
  readonly browser: Browser
  readonly page: Page
  /** What each dialog said: the confirmations asked, and nothing a client's name could raise. */
  readonly dialogs: Array<string>
}

/** A browser of the person's own, signed in through the page, on the "Connected apps" section. */
const signedIn = async (server: TestServer, person: Joined): Promise<Signed> => {
  const browser = await launch()
  const seen: Seen = { external: [], errors: [] }
  const dialogs: Array<string> = []
  const page = await watchedPage(browser, server.url, seen)
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message())
    void dialog.accept()
  })
  await page.goto(`${server.url}/settings`)
  await page.locator("#sign-in-email").fill(person.email)
  await page.locator("#sign-in-password").fill(PASSWORD)
  await page.getByRole("button", { name: "Sign in", exact: true }).click()
  await page.locator("#console").waitFor({ state: "visible" })
  await page.getByRole("navigation", { name: "Settings" }).getByRole("button", { name: "Connected apps" }).click()
  await page.locator("#apps").waitFor({ state: "visible" })
  return { browser, page, dialogs, ...seen }
}

const focusedId = (page: Page) => page.evaluate<string>("document.activeElement?.id ?? ''")

describe.skipIf(NO_CHROMIUM !== undefined)(
  `/settings' connected apps in Chromium${NO_CHROMIUM ? ` (${NO_CHROMIUM})` : ""}`,
  () => {
    let server: TestServer
    let owner: Joined & { readonly organisation: any }
    let member: Joined
    let ownerApp = ""
    let memberApp = ""
    const browsers: Array<Signed> = []

    beforeAll(async () => {
      server = await startPageServer()
      owner = await withOwner(server, "Apps Ltd")
      member = await join(server, owner.organisation.id, "member", { name: "Mia Member" })
      ownerApp = (
        await connectApp(server, owner.organisation.id, owner, {
          clientId: CLIENT,
          clientName: HOSTILE,
          scopes: ["read", "write"]
        })
      ).id
      memberApp = (
        await connectApp(server, owner.organisation.id, member, {
          clientId: `${CLIENT}?<script>`,
          clientName: null,
          scopes: ["read"]
        })
      ).id
    })
    afterAll(async () => {
      for (const each of browsers) await each.browser.close()
      await server?.close()
    })

    it("offers a member to revoke only the app they connected", async () => {
      const seen = await signedIn(server, member)
      browsers.push(seen)
      const { page } = seen
      await expect.poll(() => focusedId(page)).toBe("apps-title")
      const mine = page.locator(`#app-table tbody tr[data-app-id="${memberApp}"]`)
      const owners = page.locator(`#app-table tbody tr[data-app-id="${ownerApp}"]`)
      await mine.waitFor()
      expect(await mine.locator("th").innerText()).toBe(`(no name)\n${CLIENT}?<script>`)
      expect(await mine.textContent()).toContain("You")
      expect(await mine.getByRole("button", { name: "Revoke (no name)" }).count()).toBe(1)
      expect(await owners.getByRole("button").count()).toBe(0)
      expect(await page.locator("#apps .intro").innerText()).toContain("the ones you connected")
    })

    it("lists the owner's app with its name as text, its scopes and no use yet, and revokes it once confirmed", async () => {
      const seen = await signedIn(server, owner)
      browsers.push(seen)
      const { page } = seen
      expect(await page.locator("#apps .intro").innerText()).toContain(
        "Assistants you connected through OAuth (MCP). Revoking one stops its tokens at once."
      )
      const row = page.locator(`#app-table tbody tr[data-app-id="${ownerApp}"]`)
      await row.waitFor()
      // The client's markup is its name's text: no element made of it, nothing run.
      expect(await row.locator("th").innerText()).toBe(`${HOSTILE}\n${CLIENT}`)
      expect(await page.locator("#app-table img, #app-table script").count()).toBe(0)
      const cells = await row.locator("td").allInnerTexts()
      expect(cells[0]).toBe("read, write")
      expect(cells[1]).toMatch(/^You\n/)
      expect(cells[2]).toBe("Never")
      expect(cells[3]).toBe("Active")
      // The member's app, named by who connected it.
      const theirs = page.locator(`#app-table tbody tr[data-app-id="${memberApp}"]`)
      expect(await theirs.locator("td").nth(1).innerText()).toMatch(/^Mia Member\n/)

      await row.getByRole("button", { name: `Revoke ${HOSTILE}` }).click()
      await expect.poll(() => row.locator("td").nth(3).innerText()).toMatch(/^Revoked\n/)
      expect(seen.dialogs).toEqual([`Revoke ${HOSTILE}? Its tokens stop working at once.`])
      expect(await row.getByRole("button").count()).toBe(0)
      await expect.poll(() => page.locator("#status").textContent()).toBe(`${HOSTILE} revoked.`)
      await expect.poll(() => focusedId(page)).toBe("apps-title")
      await screenshot(page, "settings-connected-apps")

      const listed = await owner.person.settings(owner.organisation.id).get("/apps")
      const apps = new Map(listed.body.data.map((app: any) => [app.id, app.revoked_at]))
      expect(apps.get(ownerApp)).toEqual(expect.any(String))
      expect(apps.get(memberApp)).toBeNull()
    })

    it("asked nothing of any other origin, raised no dialog but its confirmation and broke no rule of its policy", () => {
      for (const each of browsers) {
        expect(each.external).toEqual([])
        expect(each.errors).toEqual([])
      }
      expect(browsers.flatMap((each) => each.dialogs)).toHaveLength(1)
    })
  }
)
