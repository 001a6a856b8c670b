/**
 * The buyer's VAT exemption, checked when an invoice is made: a company marked exempt
 * (`custom.vat_exempt: true`), or an EU business buyer (with a VAT number) in another EU member
 * state than the seller (intra-community supply, reverse charge). Either way every line is
 * zero-rated and the reason is filled in, unless the request gave one.
 */
import type { Company } from "../Companies/CompanySchemas.js"

const EU = new Set([
  "AT",
  "BE",
  "BG",
  "CY",
  "CZ",
  "DE",
  "DK",
  "EE",
  "ES",
  "FI",
  "FR",
  "GR",
  "HR",
  "HU",
  "IE",
  "IT",
  "LT",
  "LU",
  "LV",
  "MT",
  "NL",
  "PL",
  "PT",
  "RO",
  "SE",
  "SI",
  "SK"
])

export const EXEMPT_BUYER = "VAT exempt buyer"
export const REVERSE_CHARGE =
  "Reverse charge: VAT to be accounted for by the recipient (Art. 196 Directive 2006/112/EC)"

/** The reason the buyer pays no VAT, or null when it does. */
export const exemptionOf = (sellerCountry: string | null, buyer: Company | undefined): string | null => {
  if (buyer === undefined) return null
  if (buyer.custom.vat_exempt === true) return EXEMPT_BUYER
  const hasVatNumber = buyer.vat_number !== null && buyer.vat_number.trim() !== ""
  return hasVatNumber &&
    sellerCountry !== null &&
    buyer.country !== null &&
    EU.has(sellerCountry) &&
    EU.has(buyer.country) &&
    buyer.country !== sellerCountry
    ? REVERSE_CHARGE
    : null
}
