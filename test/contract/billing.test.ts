/** The storage contract of quotes, invoices, their numbering and exchange rates. */
import { contractOnEveryStore } from "../support/contract.js"

contractOnEveryStore("billing storage contract", ["quotes", "invoices", "numberSequence", "exchangeRates"])
