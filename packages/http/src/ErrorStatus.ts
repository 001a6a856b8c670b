/** The one table from error code to HTTP status. A code missing here would be a 500, which a test forbids. */
export const STATUS_BY_CODE = {
  invalid_json: 400,
  invalid_parameter: 400,
  missing_bearer_token: 401,
  invalid_api_key: 401,
  expired_api_key: 401,
  "missing_scope:read": 403,
  "missing_scope:write": 403,
  "missing_scope:quotes:write": 403,
  "missing_scope:invoices:write": 403,
  "missing_scope:forms:submit": 403,
  "missing_scope:analytics:write": 403,
  plan_refused: 403,
  not_found: 404,
  unknown_event: 404,
  method_not_allowed: 405,
  idempotency_in_progress: 409,
  email_already_exists: 409,
  not_draft: 409,
  not_payable: 409,
  too_many_hooks: 409,
  transition_not_allowed: 409,
  already_invoiced: 409,
  insufficient_stock: 409,
  stock_not_tracked: 409,
  order_already_exists: 409,
  path_already_exists: 409,
  slug_already_exists: 409,
  domain_already_exists: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  no_fields_to_update: 422,
  idempotency_key_reused: 422,
  not_issuable: 422,
  invalid_target_url: 422,
  submission_refused: 422,
  variant_required: 422,
  import_failed: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503
} as const

export type ErrorCode = keyof typeof STATUS_BY_CODE

export const statusOf = (code: string): number | undefined =>
  (STATUS_BY_CODE as Record<string, number | undefined>)[code]
