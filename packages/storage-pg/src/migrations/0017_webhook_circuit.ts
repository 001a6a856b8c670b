import { statements } from "../internal/statements.js"

export default statements(
  // A hook's circuit (core `Webhooks/Circuit`): attempts in a row that got no answer, and the
  // pause that keeps a target that stopped answering from holding a dispatcher's worker.
  `ALTER TABLE webhook_hooks ADD COLUMN unanswered_attempts integer NOT NULL DEFAULT 0`,
  `ALTER TABLE webhook_hooks ADD COLUMN paused_until timestamptz`
)
