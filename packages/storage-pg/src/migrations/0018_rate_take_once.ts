import { statements } from "../internal/statements.js"

/**
 * Every request takes from its key's window, so the row's versions are the limiter's whole cost.
 * 0002 wrote the row twice per take (an upsert whose update only locked, then the real update) and
 * once more when it refused. Under load, the heap blocks each take visited grew with the table's
 * history, from 7 to 250 within a minute (docs/benchmarks.md, eighth pass), and with them
 * PostgreSQL's CPU per request. Now a take locks the row with `FOR UPDATE` (inserting it first if
 * it is missing), writes it once when it admits and not at all when it refuses. Half of each page
 * is left free so that the next version of a row fits beside it (a HOT update, no index entry) and
 * the page prunes its dead versions itself.
 */
export default statements(
  `ALTER TABLE rate_windows SET (fillfactor = 50)`,
  `CREATE OR REPLACE FUNCTION crm_rate_take(
    p_key text,
    p_now bigint,
    p_limit integer,
    p_window_ms bigint,
    p_spend boolean,
    OUT admitted boolean,
    OUT remaining integer,
    OUT retry_after_ms bigint
  ) LANGUAGE plpgsql AS $$
  DECLARE
    v_hits bigint[];
    v_count integer;
  BEGIN
    IF p_spend THEN
      SELECT w.hits INTO v_hits FROM rate_windows AS w WHERE w.key_id = p_key FOR UPDATE;
      IF NOT FOUND THEN
        -- A concurrent first take may insert it too: DO NOTHING waits for it, and the row is then
        -- there to lock (each statement of a READ COMMITTED function sees what committed before it).
        INSERT INTO rate_windows (key_id) VALUES (p_key) ON CONFLICT (key_id) DO NOTHING;
        SELECT w.hits INTO v_hits FROM rate_windows AS w WHERE w.key_id = p_key FOR UPDATE;
      END IF;
    ELSE
      SELECT w.hits INTO v_hits FROM rate_windows AS w WHERE w.key_id = p_key;
    END IF;

    v_hits := ARRAY(SELECT h FROM unnest(coalesce(v_hits, '{}')) AS h WHERE h > p_now - p_window_ms ORDER BY h);
    v_count := cardinality(v_hits);
    admitted := v_count < p_limit;
    IF admitted AND p_spend THEN
      v_hits := v_hits || p_now;
      v_count := v_count + 1;
      UPDATE rate_windows SET hits = v_hits WHERE key_id = p_key;
    END IF;
    remaining := greatest(p_limit - v_count, 0);
    retry_after_ms := CASE
      WHEN admitted THEN 0
      ELSE greatest(coalesce((SELECT min(h) FROM unnest(v_hits) AS h) + p_window_ms - p_now, p_window_ms), 0)
    END;
  END
  $$`
)
