/** What both pages build on: their own elements, new ones made for their lists, and what a page tells its user. */

/** An element of the page's HTML: one missing is a bug of the page, not a state to handle. */
export const $ = <E extends Element = HTMLElement>(selector: string, root: ParentNode = document): E => {
  const found = root.querySelector<E>(selector)
  if (found === null) throw new Error(`the page has no ${selector}`)
  return found
}

export type Attributes = Readonly<Record<string, string | undefined>>

export const element = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: ReadonlyArray<Node | string>
): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined) continue
    if (name === "class") node.className = value
    else node.setAttribute(name, value)
  }
  node.append(...children)
  return node
}

export const button = (
  attributes: Attributes,
  onClick: () => void,
  ...children: ReadonlyArray<Node | string>
): HTMLButtonElement => {
  const node = element("button", { type: "button", ...attributes }, ...children)
  node.addEventListener("click", onClick)
  return node
}

export const badge = (text: string, tone: string) => element("span", { class: `badge ${tone}` }, text)

export const emptyRow = (columns: number, text: string) =>
  element("tr", { class: "empty-row" }, element("td", { colspan: String(columns) }, text))

export const formatTime = (iso: string | null | undefined) =>
  iso === null || iso === undefined
    ? "—"
    : new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso))

/** Announced to screen readers and shown at the top of the page. */
export const say = (message: string) => {
  const status = $("#status")
  status.textContent = ""
  // A change a screen reader notices even when the same message comes twice.
  requestAnimationFrame(() => {
    status.textContent = message
  })
}
