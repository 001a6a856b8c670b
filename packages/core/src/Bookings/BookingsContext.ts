import { Bookings, layer } from "../Bookings.js"
import { defineContext } from "../internal/defineContext.js"

export const BookingsContext = defineContext(Bookings, layer)
