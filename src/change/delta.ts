// How checkpoint contents are kept small: a version of a file is stored as
// what differs from the version before it (the common head and tail by
// length, the middle as bytes), compressed. Pure: no I/O.

/** `next` as a delta against `base`: [head u32][tail u32][middle bytes]. */
export function makeDelta(base: Uint8Array, next: Uint8Array): Uint8Array {
  const shorter = Math.min(base.length, next.length);
  let head = 0;
  while (head < shorter && base[head] === next[head]) head++;
  let tail = 0;
  while (tail < shorter - head && base[base.length - 1 - tail] === next[next.length - 1 - tail]) tail++;
  const middle = next.subarray(head, next.length - tail);
  const out = new Uint8Array(8 + middle.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, head);
  view.setUint32(4, tail);
  out.set(middle, 8);
  return out;
}

export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  const view = new DataView(delta.buffer, delta.byteOffset, delta.byteLength);
  const head = view.getUint32(0);
  const tail = view.getUint32(4);
  if (head + tail > base.length) throw new Error("delta does not fit its base");
  const middle = delta.subarray(8);
  const out = new Uint8Array(head + middle.length + tail);
  out.set(base.subarray(0, head), 0);
  out.set(middle, head);
  out.set(base.subarray(base.length - tail), head + middle.length);
  return out;
}

export function sha256(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}
