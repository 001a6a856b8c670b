/** A call of `@crm/client` as both pages make it: its data, or its refusal thrown to the form or button that made it. */
import type { CrmError } from "@crm/client"

/** A call's data, or its `CrmError` thrown to the form or button that made the call (forms.ts shows it). */
export const must = async <D>(
  call: Promise<{ data: D; error?: never } | { data?: never; error: CrmError }>
): Promise<D> => {
  const result = await call
  if (result.error !== undefined) throw result.error
  return result.data
}

export interface Issue {
  readonly path: string
  readonly message: string
}

/** A form refused by the page itself, shown as the server's `validation_failed` would be. */
export class Refusal extends Error {
  constructor(readonly issues: ReadonlyArray<Issue>) {
    super(issues.map((issue) => issue.message).join("; "))
  }
}
