/** Calendar days as an organisation sees them: transports filter by "today" in its time zone too. */
export { addDays, dateIn, startOfDay } from "./internal/dates.js"
