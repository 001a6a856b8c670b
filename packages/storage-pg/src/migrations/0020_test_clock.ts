import { statements } from "../internal/statements.js"

export default statements(
  // A test-mode organisation (core `BusinessClock`): fixed at creation. Its clock stands at
  // `clock_frozen_at` when that is set and runs on real time when it is null; a live
  // organisation never has one (the check keeps it so).
  `ALTER TABLE organisations ADD COLUMN test_mode boolean NOT NULL DEFAULT false`,
  `ALTER TABLE organisations ADD COLUMN clock_frozen_at timestamptz`,
  `ALTER TABLE organisations ADD CONSTRAINT organisations_clock_test_mode CHECK (test_mode OR clock_frozen_at IS NULL)`
)
