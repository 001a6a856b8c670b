/** A table of a settings list, a page at a time. */
import { $, emptyRow } from "../admin/dom.js"
import { act } from "./forms.js"

export const PAGE_SIZE = 50

/** The part of a page of the settings API a table reads. */
export interface ListPage<Item> {
  readonly data: ReadonlyArray<Item>
  readonly has_more: boolean
}

export interface PagedTableOptions<Item> {
  /** The section the table is in (where a refusal of its "more" button is shown). */
  readonly section: string
  /** The table's `tbody`. */
  readonly body: string
  /** Its "show more" button. */
  readonly more: string
  readonly columns: number
  /** The one row's text when the list is empty. */
  readonly empty: string
  readonly fetch: (query: { readonly limit: number; readonly offset: number }) => Promise<ListPage<Item>>
  readonly row: (item: Item) => Node
}

export interface PagedTable {
  /** Starts again from the first page. */
  readonly reload: () => Promise<void>
}

/** `reload` starts from the first page; the "more" button appends the next one while the API says there is one. */
export const pagedTable = <Item>(options: PagedTableOptions<Item>): PagedTable => {
  let offset = 0
  // A reload supersedes the loads still in flight (another organisation opened meanwhile): their
  // answers are dropped, where appending them would show another organisation's rows.
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
  $(options.more).addEventListener("click", () => act(options.section, load))
  return {
    reload: async () => {
      generation++
      offset = 0
      $(options.body).replaceChildren()
      $(options.more).hidden = true
      await load()
    }
  }
}
