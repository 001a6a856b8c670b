import { statements } from "../internal/statements.js"

/**
 * One row per key holding the admitted request times (epoch ms) still inside the window: an
 * exact rolling window, not a bucket estimate. The whole decision is one function call, so it
 * costs one round trip, and the row lock taken by the upsert serialises concurrent requests of a
 * key across every process, so that no span of the window ever admits more than the limit.
 */
export default statements(
  `CREATE TABLE rate_windows (
    key_id text PRIMARY KEY,
    hits bigint[] NOT NULL DEFAULT '{}'
  )`,
  `CREATE FUNCTION crm_rate_take(
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
      -- ON CONFLICT DO UPDATE locks the existing row (or the one a concurrent first request just
      -- inserted) and returns its latest committed state: no lost update, no unique violation.
      INSERT INTO rate_windows AS w (key_id) VALUES (p_key)
      ON CONFLICT (key_id) DO UPDATE SET hits = w.hits
      RETURNING w.hits INTO v_hits;
    ELSE
      -- A report neither locks nor writes.
      SELECT w.hits INTO v_hits FROM rate_windows AS w WHERE w.key_id = p_key;
    END IF;

    v_hits := ARRAY(SELECT h FROM unnest(coalesce(v_hits, '{}')) AS h WHERE h > p_now - p_window_ms ORDER BY h);
    v_count := cardinality(v_hits);
    admitted := v_count < p_limit;
    IF admitted AND p_spend THEN
      v_hits := v_hits || p_now;
      v_count := v_count + 1;
    END IF;
    remaining := greatest(p_limit - v_count, 0);
    retry_after_ms := CASE
      WHEN admitted THEN 0
      ELSE greatest(coalesce((SELECT min(h) FROM unnest(v_hits) AS h) + p_window_ms - p_now, p_window_ms), 0)
    END;

    IF p_spend THEN
      UPDATE rate_windows SET hits = v_hits WHERE key_id = p_key;
    END IF;
  END
  $$`
)
