/** The inventory's part of the settings document: when a product's stock counts as low. */
import { z } from "zod"

export const StockSettingsInput = z.strictObject({
  low_stock_threshold: z.number().int().min(0).default(5)
})

export const InventorySettingsInput = z.strictObject({
  stock: StockSettingsInput.default({ low_stock_threshold: 5 })
})

export const InventorySettings = z.object({ stock: z.object({ low_stock_threshold: z.number().int() }) })
export type InventorySettings = z.infer<typeof InventorySettings>

declare module "../Organisation.js" {
  interface SettingsParts extends InventorySettings {}
}
