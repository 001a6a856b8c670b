/**
 * The CRM tools of the assistant interface: contacts, companies, deals and tasks, each a thin call
 * of the same kernel operation REST uses, with inputs built from the core's wire schemas.
 */
import {
  type Access,
  Batch,
  Companies,
  Contacts,
  Deals,
  Errors,
  type Organisation,
  Tasks,
  Validation,
  Wire
} from "@crm/core"
import * as Effect from "effect/Effect"
import { z } from "zod"
import {
  CREATES,
  limitInput,
  listOf,
  listResult,
  offsetInput,
  paging,
  READ_ONLY,
  type Tool,
  tool,
  UPDATES
} from "../Tool.js"

import { searchTools } from "./search.js"

export const SEARCH_CONTACTS_CAP = 25

const idInput = <K extends z.ZodType<string>>(kind: K, what: string) => kind.describe(`the ${what}'s id (uuid)`)

/**
 * `mine`: the person the key acts for. A key without an owner has no "mine": refused naming `mine`
 * rather than answering an empty list the assistant would take for "nothing to do".
 */
const ownerOf = (principal: Access.Principal) => {
  const owner = principal.key.owner_id ?? null
  return owner === null
    ? Effect.fail(
        Errors.invalidField(
          "mine",
          "this API key has no owner, so nothing is 'mine': leave mine out, or use a key created with an owner_id",
          "key_has_no_owner"
        )
      )
    : Effect.succeed(owner)
}

const mineInput = (what: string) =>
  z.boolean().optional().describe(`true: only ${what} of the person this API key belongs to (the key's owner)`)

const searchContacts = tool({
  name: "search_contacts",
  title: "Search contacts",
  description:
    "Lists contacts whose first name, last name, email or phone contains `q` (case-insensitive), optionally only one `status` or one exact `email`, newest first, at most 25. " +
    "Use it to find a person; use `get_contact` for one contact by id.",
  scope: "read",
  annotations: READ_ONLY,
  input: Contacts.ContactListQuery.pick({ q: true, status: true, email: true }).extend({
    limit: limitInput(SEARCH_CONTACTS_CAP, SEARCH_CONTACTS_CAP),
    offset: offsetInput
  }),
  output: listResult(Contacts.Contact),
  run: (input, { principal }) =>
    Effect.flatMap(Contacts.Contacts, (contacts) =>
      contacts.list(principal.organisation, input).pipe(Effect.map(listOf))
    )
})

const getContact = tool({
  name: "get_contact",
  title: "Get a contact",
  description: "Returns one contact by id with every field (name, email, phone, company_id, status, source, custom).",
  scope: "read",
  annotations: READ_ONLY,
  input: z.object({ id: idInput(Contacts.ContactId, "contact") }),
  output: Contacts.Contact,
  run: ({ id }, { principal }) =>
    Effect.flatMap(Contacts.Contacts, (contacts) => contacts.get(principal.organisation, id))
})

const getCompany = tool({
  name: "get_company",
  title: "Get a company",
  description: "Returns one company by id with every field (name, domain, email, VAT number, city, country, custom).",
  scope: "read",
  annotations: READ_ONLY,
  input: z.object({ id: idInput(Companies.CompanyId, "company") }),
  output: Companies.Company,
  run: ({ id }, { principal }) =>
    Effect.flatMap(Companies.Companies, (companies) => companies.get(principal.organisation, id))
})

const getDeal = tool({
  name: "get_deal",
  title: "Get a deal",
  description:
    "Returns one deal by id plus `pipeline` (its pipeline's id, name and ordered stages) and the same ordered `stages` at the top level (id, name, kind open/won/lost, required fields, playbook). " +
    "Use the stage ids or names with `move_deal`.",
  scope: "read",
  annotations: READ_ONLY,
  input: z.object({ id: idInput(Deals.DealId, "deal") }),
  output: Deals.Deal.extend({
    pipeline: Deals.Pipeline.nullable().describe("the deal's pipeline; null when the settings no longer have it"),
    stages: z.array(Deals.Stage).describe("the pipeline's stages in order, as in pipeline.stages")
  }),
  run: ({ id }, { principal }) =>
    Effect.gen(function* () {
      const deals = yield* Deals.Deals
      const deal = yield* deals.get(principal.organisation, id)
      const { pipeline } = Deals.DealStage.locate(principal.organisation.settings, deal)
      // The stages also at the top level: "the deal with the stages of its pipeline" read either way.
      return {
        ...deal,
        pipeline: pipeline === undefined ? null : { id: pipeline.id, name: pipeline.name, stages: pipeline.stages },
        stages: pipeline?.stages ?? []
      }
    })
})

const listDeals = tool({
  name: "list_deals",
  title: "List deals",
  description:
    "Lists deals, most recently changed first. Filters: `stage_kind` (open, won or lost), `contact_id`, `company_id`, `pipeline_id`, " +
    "`mine` (deals owned by this key's owner) and `overdue_close` (open deals whose expected close date is before today in the organisation's time zone).",
  scope: "read",
  annotations: READ_ONLY,
  input: z.object({
    stage_kind: Deals.DealListQuery.shape.status_kind.describe("open, won or lost: the kind of the deal's stage"),
    // REST calls the same filter `status_kind`; an assistant that learnt the REST name is understood too.
    status_kind: Deals.DealListQuery.shape.status_kind.describe("the same as stage_kind (the REST list's name)"),
    contact_id: Contacts.ContactId.optional().describe("only deals of this contact"),
    company_id: Companies.CompanyId.optional().describe("only deals of this company"),
    pipeline_id: Deals.PipelineId.optional().describe("only deals in this pipeline"),
    mine: mineInput("deals owned by"),
    overdue_close: z
      .boolean()
      .optional()
      .describe("true: only open deals whose expected_close_date is before today (organisation's time zone)"),
    ...paging
  }),
  output: listResult(Deals.Deal),
  run: (input, { principal }) =>
    Effect.gen(function* () {
      const organisation = principal.organisation
      const ownerId = input.mine === true ? yield* ownerOf(principal) : undefined
      const statusKind = input.stage_kind ?? input.status_kind
      const deals = yield* Deals.Deals
      const page = yield* deals.listBy(
        organisation,
        {
          order: "updated",
          ...(statusKind !== undefined ? { statusKind } : {}),
          ...(input.contact_id !== undefined ? { contactId: input.contact_id } : {}),
          ...(input.company_id !== undefined ? { companyId: input.company_id } : {}),
          ...(input.pipeline_id !== undefined ? { pipelineId: input.pipeline_id } : {}),
          ...(ownerId !== undefined ? { ownerId } : {}),
          ...(input.overdue_close === true ? { overdueClose: true } : {})
        },
        { limit: input.limit, offset: input.offset }
      )
      return listOf(page)
    })
})

const listTasks = tool({
  name: "list_tasks",
  title: "List open tasks",
  description:
    "Lists open (not done) tasks, soonest due first, tasks without a due date last. Filters: `due` (overdue: due before now; today: due today in the organisation's time zone), " +
    "`mine` (assigned to this key's owner), `entity_type` with optional `entity_id` (tasks on a contact, company or deal), `priority`.",
  scope: "read",
  annotations: READ_ONLY,
  input: z.object({
    due: z
      .enum(["overdue", "today"])
      .optional()
      .describe("overdue: due before now; today: due during today in the organisation's time zone"),
    mine: mineInput("tasks assigned to"),
    entity_type: Tasks.EntityType.optional().describe("only tasks on a record of this kind"),
    entity_id: Wire.IdInput.optional().describe("only tasks on this contact, company or deal"),
    priority: Tasks.TaskListQuery.shape.priority,
    ...paging
  }),
  output: listResult(Tasks.Task),
  run: (input, { principal }) =>
    Effect.gen(function* () {
      const organisation = principal.organisation
      const assigneeId = input.mine === true ? yield* ownerOf(principal) : undefined
      const tasks = yield* Tasks.Tasks
      const page = yield* tasks.listBy(
        organisation,
        {
          done: false,
          order: "due",
          ...(input.due !== undefined ? { due: input.due } : {}),
          ...(assigneeId !== undefined ? { assigneeId } : {}),
          ...(input.entity_type !== undefined ? { entityType: input.entity_type } : {}),
          ...(input.entity_id !== undefined ? { entityId: input.entity_id } : {}),
          ...(input.priority !== undefined ? { priority: input.priority } : {})
        },
        { limit: input.limit, offset: input.offset }
      )
      return listOf(page)
    })
})

const createContact = tool({
  name: "create_contact",
  title: "Create a contact",
  description:
    "Creates a contact and returns it. Needs at least one of first_name, last_name or email. " +
    "An email another contact already has is refused with `email_already_exists` (the detail names that contact): nothing is merged, so use `update_contact` on it instead.",
  scope: "write",
  annotations: CREATES,
  input: Contacts.ContactCreate,
  output: Contacts.Contact,
  run: (input, { principal, actor }) =>
    Effect.flatMap(Contacts.Contacts, (contacts) => contacts.create(principal.organisation, input, actor))
})

const updateContact = tool({
  name: "update_contact",
  title: "Update a contact",
  description:
    "Changes the given fields of a contact and returns it; fields left out keep their value, null clears one. " +
    "Pass at least one field besides `id` (else `no_fields_to_update`).",
  scope: "write",
  annotations: UPDATES,
  input: Contacts.ContactPatch.extend({ id: idInput(Contacts.ContactId, "contact") }),
  output: Contacts.Contact,
  run: ({ id, ...patch }, { principal, actor }) =>
    Effect.gen(function* () {
      // REST PATCH's rule: naming no field to change (here: nothing besides id) is `no_fields_to_update`.
      const fields = yield* Validation.parsePatch(Contacts.ContactPatch, patch)
      const contacts = yield* Contacts.Contacts
      return yield* contacts.update(principal.organisation, id, fields, actor)
    })
})

const createDeal = tool({
  name: "create_deal",
  title: "Create a deal",
  description:
    "Creates a deal and returns it. Only `title` is required; the pipeline defaults to the organisation's first and the stage to its first open stage, the currency to the organisation's. " +
    "contact_id and company_id must be existing records (find them with `search`).",
  scope: "write",
  annotations: CREATES,
  input: Deals.DealCreate,
  output: Deals.Deal,
  run: (input, { principal, actor }) =>
    Effect.flatMap(Deals.Deals, (deals) => deals.create(principal.organisation, input, actor))
})

const moveDeal = tool({
  name: "move_deal",
  title: "Move a deal to another stage",
  description:
    "Moves a deal to a stage of its pipeline (by `status_id`, or by the stage's `stage_name`) and returns `{deal, playbook_tasks}`: the stage history, won/lost events, closing time and the stage's playbook tasks follow as for the REST status change. " +
    "A lost stage needs no reason (`lost_reason` is optional). A stage whose required fields the deal lacks refuses the move with `validation_failed` naming them. Moving to the stage the deal is in changes nothing.",
  scope: "write",
  annotations: UPDATES,
  input: Deals.DealStatus.extend({
    id: idInput(Deals.DealId, "deal"),
    status_id: Deals.DealMove.shape.status_id.describe("the target stage's id (see get_deal)"),
    stage_name: Deals.DealMove.shape.stage_name
  }),
  output: z.object({
    deal: Deals.Deal,
    playbook_tasks: z.array(Tasks.Task).describe("the tasks the target stage's playbook created; empty when unmoved")
  }),
  run: ({ id, ...request }, { principal, actor }) =>
    Effect.flatMap(Deals.Deals, (deals) => deals.move(principal.organisation, id, request, actor)).pipe(
      Effect.map(({ deal, tasks }) => ({ deal, playbook_tasks: tasks }))
    )
})

// The assignee is not a choice here: the task is the key owner's own.
const TaskItem = z.strictObject(Tasks.TaskCreate.shape).omit({ assignee_id: true })

/** A task of the key's owner; `omit` drops the core schema's cross-field rule (entity_type with entity_id): checked here. */
const ownTask = (
  principal: Access.Principal,
  input: z.output<typeof TaskItem>,
  actor: Organisation.Actor,
  tasks: Tasks.Tasks["Type"]
) =>
  Effect.flatMap(Validation.parse(Tasks.TaskCreate, input), (checked) =>
    tasks.create(principal.organisation, { ...checked, assignee_id: principal.key.owner_id ?? null }, actor)
  )

const createTask = tool({
  name: "create_task",
  title: "Create a task",
  description:
    "Creates an open task assigned to the person this API key belongs to (unassigned when the key has no owner) and returns it. " +
    "Attach it to a record with entity_type (contact, company or deal) and entity_id together; due_at is an ISO 8601 time.",
  scope: "write",
  annotations: CREATES,
  input: TaskItem,
  output: Tasks.Task,
  run: (input, { principal, actor }) => Effect.flatMap(Tasks.Tasks, (tasks) => ownTask(principal, input, actor, tasks))
})

const upsertContact = tool({
  name: "upsert_contact",
  title: "Create or update a contact by email",
  description:
    "Use this rather than create_contact when you hold an email address and do not know whether the contact exists (syncing or importing a list): " +
    "creates the contact with this email, or changes only the fields given of the one that has it; fields left out keep their value, null clears one. " +
    "Returns `{contact, outcome}`, outcome being created, updated or unchanged (same values: nothing is written). Calling it again with the same arguments changes nothing.",
  scope: "write",
  annotations: UPDATES,
  input: Contacts.ContactUpsert,
  output: z.object({ contact: Contacts.Contact, outcome: Batch.Outcome }),
  run: (input, { principal, actor }) =>
    Effect.map(
      Effect.flatMap(Contacts.Contacts, (contacts) => contacts.upsert(principal.organisation, input, actor)),
      ({ record, outcome }) => ({ contact: record, outcome })
    )
})

const batchOf = <S extends z.ZodType>(item: S, what: string) =>
  z.strictObject({
    items: z
      .array(item)
      .min(1)
      .max(Batch.MAX_BATCH_ITEMS)
      .describe(`1 to ${Batch.MAX_BATCH_ITEMS} ${what}, each as the single create takes it, created in this order`)
  })

/** What a batch tool answers: the records it created, in the order given. */
const createdOf = <S extends z.ZodType>(record: S, what: string) =>
  z.object({ items: z.array(record).describe(`the created ${what}, in the order given`) })

const createContacts = tool({
  name: "create_contacts",
  title: "Create several contacts at once",
  description:
    `Use this instead of calling create_contact repeatedly when you have a list (up to ${Batch.MAX_BATCH_ITEMS}): creates every contact or none, in one step, and returns \`{items}\` in the order given. ` +
    "If one is refused (an email another contact has, a missing name and email), nothing is created and the error is `batch_failed` naming the item's `index`, its error code and detail: fix or drop that item and call again. " +
    "For a list that may hold people already in the CRM, use upsert_contact for each instead.",
  scope: "write",
  annotations: CREATES,
  input: batchOf(Contacts.ContactCreate, "contacts"),
  output: createdOf(Contacts.Contact, "contacts"),
  batch: true,
  run: ({ items }, { principal, actor }) =>
    Effect.gen(function* () {
      const contacts = yield* Contacts.Contacts
      const batches = yield* Batch.Batches
      const created = yield* batches.creates(items, (item) => contacts.create(principal.organisation, item, actor))
      return { items: created }
    })
})

const createTasks = tool({
  name: "create_tasks",
  title: "Create several tasks at once",
  description:
    `Use this instead of calling create_task repeatedly when you have a list (up to ${Batch.MAX_BATCH_ITEMS}): creates every task (each as create_task would, assigned to the key's owner) or none, and returns \`{items}\` in the order given. ` +
    "If one is refused, nothing is created and the error is `batch_failed` naming the item's `index`, its error code and detail.",
  scope: "write",
  annotations: CREATES,
  input: batchOf(TaskItem, "tasks"),
  output: createdOf(Tasks.Task, "tasks"),
  batch: true,
  run: ({ items }, { principal, actor }) =>
    Effect.gen(function* () {
      const tasks = yield* Tasks.Tasks
      const batches = yield* Batch.Batches
      const created = yield* batches.creates(items, (item) => ownTask(principal, item, actor, tasks))
      return { items: created }
    })
})

export const crmTools: ReadonlyArray<Tool> = [
  ...searchTools,
  searchContacts,
  getContact,
  getCompany,
  getDeal,
  listDeals,
  listTasks,
  createContact,
  createContacts,
  upsertContact,
  updateContact,
  createDeal,
  moveDeal,
  createTask,
  createTasks
]
