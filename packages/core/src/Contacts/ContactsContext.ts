import { Contacts, layer } from "../Contacts.js"
import { defineContext } from "../internal/defineContext.js"

export const ContactsContext = defineContext(Contacts, layer)
