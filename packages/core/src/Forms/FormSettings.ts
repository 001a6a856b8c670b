/** The forms' part of the settings document. */
import { z } from "zod"
import { checkForms, Form, FormInput } from "./FormDefinitions.js"

// The ids the part's entries carry: the hub mints them where a client left them out.
export { FormId } from "./FormIds.js"

export const FormSettingsInput = z.strictObject({
  forms: z
    .array(FormInput)
    .default([])
    .superRefine((forms, ctx) => {
      for (const issue of checkForms(forms)) ctx.addIssue({ code: "custom", ...issue, path: [...issue.path] })
    })
})

// Documents stored before forms existed have none.
export const FormSettings = z.object({ forms: z.array(Form).default([]) })
export type FormSettings = z.infer<typeof FormSettings>

declare module "../Organisation.js" {
  interface SettingsParts extends FormSettings {}
}
