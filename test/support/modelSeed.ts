/**
 * One seed for a model test's command sequences and for its kernel's ids (`Ids.layerSeeded`), so
 * that `MODEL_SEED=<the seed fast-check printed>` replays the whole run with the same ids.
 */
export const modelSeed = (): number => {
  const given = process.env.MODEL_SEED
  // fast-check's own default when none is given.
  return given === undefined ? Date.now() ^ (Math.random() * 0x100000000) : Number(given)
}
