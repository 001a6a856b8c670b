/** Exchange rates, imported from a central bank's published text. */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { $, say } from "../shared/dom.js"
import { text } from "../shared/forms.js"
import { admin } from "./api.js"
import { onSubmit } from "./forms.js"

export const wireRates = () =>
  onSubmit($<HTMLFormElement>("#rates-form"), async (data) => {
    const result = await must(
      admin().POST("/exchange-rates", {
        // The select offers the formats the API reads.
        body: { format: text(data, "format") as Schemas["RatesImport"]["format"], text: text(data, "text") }
      })
    )
    $<HTMLTextAreaElement>("#rates-text").value = ""
    say(`Imported ${result.imported} exchange rates.`)
  })
