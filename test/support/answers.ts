/** Reading answers in HTTP tests: refusals, validation paths, event data and stock movements. */
import { expect } from "vitest"
import type { Client } from "./server.js"

export const refused = (response: { status: number; body: any }, status: number, error: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status)
  expect(response.body.error).toBe(error)
}

/** The paths a 422 `validation_failed` names. */
export const paths = (response: { body: any }): Array<string> => response.body.detail.map((issue: any) => issue.path)

/** The data of every event of one name, oldest first. */
export const events = async (client: Client, name: string): Promise<Array<any>> => {
  const page = await client.get(`/events?since=0&event=${name}`)
  expect(page.status).toBe(200)
  return page.body.data.map((event: any) => event.data)
}

/** A product's stock movements (`query` adds filters, e.g. `&variant_id=...`). */
export const movements = async (client: Client, id: string, query = ""): Promise<Array<any>> => {
  const page = await client.get(`/products/${id}/stock-movements?limit=200${query}`)
  expect(page.status).toBe(200)
  return page.body.data
}

/**
 * The ids of records in the order a default list gives them: newest created first, ties (two creates
 * in one millisecond) by id descending.
 */
export const newestFirst = (...records: ReadonlyArray<{ id: string; created_at: string }>): Array<string> =>
  [...records].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id)).map((r) => r.id)
