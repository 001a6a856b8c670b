/** Which of the page's views is shown: a sign-in form (sign in, accept an invitation, new password) or the console. */
import { $ } from "../shared/dom.js"

export type View = "sign-in" | "accept" | "reset" | "console"

const VIEWS: ReadonlyArray<View> = ["sign-in", "accept", "reset", "console"]

export const showView = (view: View) => {
  for (const each of VIEWS) $(`#${each}`).hidden = each !== view
  $("#who").hidden = view !== "console"
  $("#sign-out").hidden = view !== "console"
}
