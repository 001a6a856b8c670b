/** A table of a list of the API, a page at a time. */
import { $, emptyRow } from "./dom.js"

export const PAGE_SIZE = 50

/** The part of a page of the API a table reads. */
export interface ListPage<Item> {
  readonly data: ReadonlyArray<Item>
  readonly has_more: boolean
}

export interface PagedTableOptions<Item> {
  /** The table's `tbody`. */
  readonly body: string
  /** Its "show more" button. */
  readonly more: string
  readonly columns: number
  /** The one row's text when the list is empty. */
  readonly empty: string
  readonly fetch: (query: { readonly limit: number; readonly offset: number }) => Promise<ListPage<Item>>
  readonly row: (item: Item) => Node
  /** Runs the "more" button's load as the page runs a button's action (showing its refusal where the page does). */
  readonly act: (action: () => Promise<void>) => Promise<void>
}

export interface PagedTable {
  /** Starts again from the first page. */
  readonly reload: () => Promise<void>
}

/** `reload` starts from the first page; the "more" button appends the next one while the API says there is one. */
export const pagedTable = <Item>(options: PagedTableOptions<Item>): PagedTable => {
  let offset = 0
  // A reload supersedes the loads still in flight (another organisation or key opened meanwhile, a
  // subscription made at once reloading the table): their answers are dropped, where appending them
  // showed rows twice, or another organisation's.
  let generation = 0
  const load = async () => {
    const started = generation
    const page = await options.fetch({ limit: PAGE_SIZE, offset })
    if (started !== generation) return
    const rows = $(options.body)
    for (const item of page.data) rows.append(options.row(item))
    offset += page.data.length
    if (rows.children.length === 0) rows.append(emptyRow(options.columns, options.empty))
    $(options.more).hidden = !page.has_more
  }
  $(options.more).addEventListener("click", () => options.act(load))
  return {
    reload: async () => {
      generation++
      offset = 0
      $(options.body).replaceChildren()
      // Hidden until the first page says there is more: a refused reload offers no next page of a list not shown.
      $(options.more).hidden = true
      await load()
    }
  }
}
