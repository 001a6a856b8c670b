import { Records } from "@crm/core"
import { type Area, named } from "../Area.js"
import { batchRoute, createRoute, getRoute, listRoute, patchRoute } from "./resource.js"

const spec = {
  service: Records.Records,
  plural: "records",
  singular: "record",
  pascal: "Record",
  schemas: {
    id: Records.RecordId,
    create: Records.RecordCreate,
    patch: Records.RecordPatch,
    record: Records.CustomRecord,
    page: Records.RecordPage,
    query: Records.RecordListQuery
  },
  createErrors: ["validation_failed"],
  updateErrors: [],
  notes: {
    create:
      "Create a record of a type defined in the organisation settings: custom keys the type does not define are dropped and listed in ignored_fields; values are checked per field type; formula and rollup fields are computed, never set",
    update:
      "Change a record: omitted fields keep their value, null clears a field; each custom key sent replaces that value (null clears it), undefined keys are dropped and listed in ignored_fields"
  }
} as const

// Create and PATCH answer the record with the custom keys that were dropped.
const writing = { ...spec, schemas: { ...spec.schemas, record: Records.WrittenRecord } }

export const recordRoutes = [
  listRoute(spec),
  createRoute(writing),
  batchRoute(writing),
  getRoute(spec),
  patchRoute(writing)
]

export const recordsArea: Area = {
  api: recordRoutes,
  schemaNames: [
    ...named(
      Records,
      "CustomRecord",
      "WrittenRecord",
      "RecordCreate",
      "RecordPatch",
      "RecordPage",
      "RecordType",
      "RecordTypeInput",
      "Aggregate"
    ),
    // The settings answer a field as it was stored, defaults filled in: in a response no field of
    // its is missing, so the response shape has a name of its own.
    [Records.RecordFieldInput, { input: "RecordFieldInput", output: "RecordField" }]
  ]
}
