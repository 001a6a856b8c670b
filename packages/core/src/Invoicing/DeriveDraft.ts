/**
 * What a draft invoice derives from what the client sent, on create and on every change: its
 * links (checked to be live records of the organisation), the buyer frozen from them, the VAT
 * exemption the buyer's company earns, and the priced lines.
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CompanyId } from "../Companies/CompanyIds.js"
import type { CompanyRepository } from "../Companies/CompanyRepository.js"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { ContactRepository } from "../Contacts/ContactRepository.js"
import type { StorageError } from "../Errors.js"
import { requireLink } from "../internal/records.js"
import type { Organisation } from "../Organisation.js"
import type { LineInput } from "../Pricing/LineSchemas.js"
import { price } from "../Pricing/PricedDocument.js"
import { buyerOf } from "./BuyerOf.js"
import { exemptionOf } from "./VatExemption.js"

export interface DraftInput {
  readonly contact_id: ContactId | null
  readonly company_id: CompanyId | null
  readonly currency: string
  readonly items: ReadonlyArray<LineInput>
  readonly vat_reason: string | null
}

const zeroRated = (items: ReadonlyArray<LineInput>): ReadonlyArray<LineInput> =>
  items.map((item) => ({ ...item, vat_rate: 0 }))

const linked = <I extends string, A>(
  field: string,
  id: I | null,
  lookup: (id: I) => Effect.Effect<Option.Option<A>, StorageError>
) =>
  id === null
    ? Effect.succeed(undefined)
    : Effect.zipRight(requireLink(field, id, lookup), Effect.map(lookup(id), Option.getOrUndefined))

/** Links, buyer, exemption and prices: everything a draft derives from what the client sent. */
export const deriveDraft =
  (repos: {
    readonly contacts: Context.Tag.Service<typeof ContactRepository>
    readonly companies: Context.Tag.Service<typeof CompanyRepository>
  }) =>
  (organisation: Organisation, draft: DraftInput) =>
    Effect.gen(function* () {
      const contact = yield* linked("contact_id", draft.contact_id, (id) => repos.contacts.get(organisation.id, id))
      const company = yield* linked("company_id", draft.company_id, (id) => repos.companies.get(organisation.id, id))
      const exemption = exemptionOf(organisation.settings.country, company)
      const items = exemption === null ? draft.items : zeroRated(draft.items)
      return {
        buyer: buyerOf(contact, company),
        vat_reason: exemption !== null && draft.vat_reason === null ? exemption : draft.vat_reason,
        ...price(items, draft.currency)
      }
    })
