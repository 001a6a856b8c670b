import * as Layer from "effect/Layer"
import { Deals, layer } from "../Deals.js"
import { defineContext } from "../internal/defineContext.js"
import * as Mail from "../Mail.js"
import * as Tasks from "../Tasks.js"
import * as Playbooks from "./Playbooks.js"

/** Deals publish stage entries to the playbook consumer, which creates tasks through `Tasks`, and mail owners on a close. */
export const DealsContext = defineContext(
  Deals,
  layer.pipe(Layer.provide(Playbooks.layer), Layer.provide(Tasks.layer), Layer.provide(Mail.layer))
)
