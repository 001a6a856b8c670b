/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the variant used by zlib, PNG
 * and GitHub's token checksums. Written here rather than imported because the core may
 * depend only on `effect` and `zod`.
 */

const TABLE: ReadonlyArray<number> = (() => {
  const table = new Array<number>(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) {
      c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    }
    table[n] = c >>> 0
  }
  return table
})()

/** The checksum as an unsigned 32-bit integer. */
export const crc32 = (bytes: Uint8Array): number => {
  let crc = 0xffffffff
  for (let i = 0; i < bytes.length; i++) {
    crc = TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8)
  }
  // `>>> 0` because JavaScript bitwise operators yield signed 32-bit results.
  return (crc ^ 0xffffffff) >>> 0
}
