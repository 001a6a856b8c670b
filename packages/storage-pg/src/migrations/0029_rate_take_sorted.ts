import { statements } from "../internal/statements.js"

/**
 * A take's cost grew with its key's window: 0018 unnested the window's hits, filtered and sorted
 * them back into an array on every take (on PGlite, 226-243 µs a take with about 500 hits in the
 * window, some 1 µs a hit: docs/benchmarks.md, issue 38). The hits are now kept in ascending
 * order, so those that left the window are a prefix, found by the binary search of `width_bucket`
 * (the count of hits at or before the window's start) and cut off by a slice; a take's own hit
 * goes at the end, or in its place when another process's clock runs behind. Rows written before
 * are sorted once here: 0018 kept them sorted but for a last hit that such a clock put out of order.
 */
export default statements(
  `UPDATE rate_windows SET hits = ARRAY(SELECT h FROM unnest(hits) AS h ORDER BY h)
    WHERE cardinality(hits) > 1`,
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
    v_at integer;
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

    v_hits := coalesce(v_hits, '{}');
    v_hits := v_hits[width_bucket(p_now - p_window_ms, v_hits) + 1:];
    v_count := cardinality(v_hits);
    admitted := v_count < p_limit;
    IF admitted AND p_spend THEN
      IF v_count = 0 OR v_hits[v_count] <= p_now THEN
        v_hits := v_hits || p_now;
      ELSE
        v_at := width_bucket(p_now, v_hits);
        v_hits := v_hits[:v_at] || p_now || v_hits[v_at + 1:];
      END IF;
      v_count := v_count + 1;
      UPDATE rate_windows SET hits = v_hits WHERE key_id = p_key;
    END IF;
    remaining := greatest(p_limit - v_count, 0);
    retry_after_ms := CASE
      WHEN admitted THEN 0
      ELSE greatest(coalesce(v_hits[1] + p_window_ms - p_now, p_window_ms), 0)
    END;
  END
  $$`
)
