import { statements } from "../internal/statements.js"

// A purchase order's receipt and a received return move stock like a sale does; each movement
// names the document it belongs to, as `order_id` does for a sale.
export default statements(
  `ALTER TABLE stock_movements ADD COLUMN purchase_order_id uuid`,
  `ALTER TABLE stock_movements ADD COLUMN return_id uuid`
)
