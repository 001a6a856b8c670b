/**
 * Today's date for tests that compare it with the dates the server takes. The server dates by the
 * same clock as the test, but at its own moment: a date the test takes before a request and compares
 * after it is wrong once midnight passes in between, and then the failure is the test's, not the
 * server's.
 */

/** Today (`YYYY-MM-DD`) in `timeZone`. */
export const todayIn = (timeZone: string): string =>
  new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(Date.now())

/**
 * Runs `body` with today in `timeZone`. If it fails and the date there has changed meanwhile, it runs
 * once more with the new date (a run takes seconds, so it cannot meet a second midnight), and that
 * run's outcome is the test's; any other failure stands. `body` must make what it compares afresh
 * (a tenant of its own), since a first run may have left its records behind.
 */
export const onOneDay = async (timeZone: string, body: (today: string) => Promise<void>): Promise<void> => {
  const today = todayIn(timeZone)
  try {
    await body(today)
  } catch (failure) {
    const now = todayIn(timeZone)
    if (now === today) throw failure
    await body(now)
  }
}
