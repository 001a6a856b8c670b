/**
 * Secrets the API shows once (a new key, a hook's signing secret, an invitation's link). Each has
 * its box in the page (`{{secret ...}}` in the page's HTML, written by Pages.ts): the secret is
 * shown there until the box is emptied (the next render) or the page reloaded, and kept in no
 * variable. Its copy button copies it.
 */
import { $, say } from "./dom.js"

/** Shows a secret in its box (`#<box>`), with its note when given; the caller gives the box the focus once the page around it is drawn. */
export const reveal = (box: string, secret: string, note?: string): HTMLElement => {
  $(`#${box}-value`).textContent = secret
  if (note !== undefined) $(`#${box}-note`).textContent = note
  const shown = $(`#${box}`)
  shown.hidden = false
  return shown
}

export const conceal = (box: string) => {
  $(`#${box}`).hidden = true
  $(`#${box}-value`).textContent = ""
}

/**
 * Each copy button (`data-copy` names what it copies), run as the page runs a button's action. The
 * clipboard API exists only in a secure context (https, or this machine): elsewhere the text is
 * selected for the keyboard's copy.
 */
export const wireCopyButtons = (act: (button: HTMLElement, action: () => Promise<void>) => Promise<void>) => {
  for (const copy of document.querySelectorAll<HTMLElement>("[data-copy]")) {
    copy.addEventListener("click", () =>
      act(copy, async () => {
        const source = $(`#${copy.dataset.copy}`)
        if (navigator.clipboard !== undefined) {
          await navigator.clipboard.writeText(source.textContent ?? "")
          say("Copied to the clipboard.")
          return
        }
        const range = document.createRange()
        range.selectNodeContents(source)
        const selection = getSelection()
        selection?.removeAllRanges()
        selection?.addRange(range)
        say("Selected: press Ctrl+C (or ⌘C) to copy it.")
      })
    )
  }
}
