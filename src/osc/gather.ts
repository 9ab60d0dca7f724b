// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
/**
 * The gathered method's transaction handling (003b §3.2d): before a target's gathered
 * requests go out as one BATCH message, each run of consecutive Puts is sorted by target
 * displacement and Puts that are contiguous at the target are merged into one (MPI lets Puts of
 * one epoch complete in any order, and overlapping Puts are erroneous). Accumulates keep their
 * order (MPI's default accumulate_ordering) and stay where they were between the runs.
 *
 * A batch entry: kind and length as two doubles, then the request (header of `headerDoubles`
 * doubles: id, byte offset, element count, element kind, op code, has-data, blocks; then the
 * data), padded to 8 bytes. The thesis sorts by origin address to walk the origin's memory
 * sequentially while it builds the message; here the data were copied at the call, so the
 * target's order is the one that pays: one copy per merged range at the target.
 */

interface PutEntry {
  readonly offset: number;
  readonly data: Uint8Array;
  readonly id: number;
}

/**
 * Returns the batch with its Put runs sorted and merged (a new buffer), or null when no two
 * Puts merge. `putKind`: the request kind of Put; `byteType`: the element kind of bytes (KIND_UINT8).
 */
export function mergePuts(buf: Uint8Array, len: number, putKind: number, headerDoubles: number, byteType: number):
  { bytes: Uint8Array; merged: number } | null {
  const headerBytes = headerDoubles * 8;
  const out: Uint8Array[] = [];
  let run: PutEntry[] = [];
  let merged = 0;
  const flush = (): void => {
    if (run.length === 0) return;
    run.sort((a, b) => a.offset - b.offset);
    for (let i = 0; i < run.length;) {
      let j = i + 1;
      let end = run[i]!.offset + run[i]!.data.length;
      while (j < run.length && run[j]!.offset === end) end += run[j++]!.data.length;
      const bytes = end - run[i]!.offset;
      const msg = new Uint8Array(headerBytes + bytes);
      const h = new Float64Array(msg.buffer, 0, headerDoubles);
      h[0] = run[i]!.id;
      h[1] = run[i]!.offset;
      h[2] = bytes;
      h[3] = byteType;
      h[4] = -1;
      h[5] = 1;
      for (let k = i, at = headerBytes; k < j; at += run[k]!.data.length, k++) msg.set(run[k]!.data, at);
      out.push(entry(putKind, msg));
      merged += j - i - 1;
      i = j;
    }
    run = [];
  };
  for (let at = 0; at < len;) {
    const e = new Float64Array(buf.buffer, buf.byteOffset + at, 2);
    const kind = e[0]!;
    const n = e[1]!;
    const msg = buf.subarray(at + 16, at + 16 + n);
    if (kind === putKind) {
      const h = new Float64Array(msg.buffer, msg.byteOffset, headerDoubles);
      run.push({ offset: h[1]!, data: msg.subarray(headerBytes), id: h[0]! });
    } else {
      flush();
      out.push(buf.subarray(at, at + 16 + Math.ceil(n / 8) * 8));
    }
    at += 16 + Math.ceil(n / 8) * 8;
  }
  flush();
  if (merged === 0) return null;
  const total = out.reduce((s, p) => s + p.length, 0);
  const bytes = new Uint8Array(total);
  for (let i = 0, at = 0; i < out.length; at += out[i]!.length, i++) bytes.set(out[i]!, at);
  return { bytes, merged };
}

/** One batch entry (kind, length, request, padding) for `msg`. */
function entry(kind: number, msg: Uint8Array): Uint8Array {
  const e = new Uint8Array(16 + Math.ceil(msg.length / 8) * 8);
  const head = new Float64Array(e.buffer, 0, 2);
  head[0] = kind;
  head[1] = msg.length;
  e.set(msg, 16);
  return e;
}
