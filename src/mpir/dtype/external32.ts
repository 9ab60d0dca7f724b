import type { Datatype } from '../datatype.js';
import { walk } from './cursor.js';
import type { Node } from './flatten.js';

/**
 * Typed access to the basic elements of a packed stream: the byte width of each component of
 * a predefined type (one for plain types, two for the MAXLOC/MINLOC pair types, whose padding
 * stays as it is), used to convert native (little-endian) data to external32 (big-endian) and
 * to count basic elements (Status.Get_elements).
 */
const PAIRS: Record<string, readonly (readonly [number, number])[]> = {
  MPI_FLOAT_INT: [[0, 4], [4, 4]],
  MPI_DOUBLE_INT: [[0, 8], [8, 4]],
  MPI_LONG_INT: [[0, 8], [8, 4]],
  MPI_2INT: [[0, 4], [4, 4]],
  MPI_SHORT_INT: [[0, 2], [4, 4]],
};

/** [offset, width] of each component of one element of a predefined type. */
export function components(basic: Datatype): readonly (readonly [number, number])[] {
  if (basic.kind === 'pair') return PAIRS[basic.name] ?? [[0, basic.size]];
  return [[0, basic.size]];
}

const nativeLittle = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

function reverse(b: Uint8Array, at: number, width: number): void {
  for (let i = at, j = at + width - 1; i < j; i++, j--) {
    const x = b[i]!;
    b[i] = b[j]!;
    b[j] = x;
  }
}

/**
 * Converts packed bytes [start, end) of `nodes`, lying in `buf` from `bufPos`, between native
 * and external32 byte order (the conversion is its own inverse). The range must start and end
 * at element boundaries, as whole-instance packing does.
 */
export function swapToFromExternal32(nodes: readonly Node[], buf: Uint8Array, bufPos: number, start: number, end: number): void {
  if (!nativeLittle) return;
  walk(nodes, 0, bufPos - start, start, end, (_mem, packed, len, block) => {
    const size = block.basic.size;
    const parts = components(block.basic);
    if (parts.length === 1 && size === 1) return;
    for (let e = packed; e + size <= packed + len; e += size) {
      for (const [off, width] of parts) if (width > 1) reverse(buf, e + off, width);
    }
  });
}

/**
 * Basic elements in the first `bytes` packed bytes of `nodes` (one instance, `size` packed
 * bytes, `perInstance` elements); null when `bytes` ends inside a basic element.
 */
export function countElements(nodes: readonly Node[], size: number, perInstance: number, bytes: number): number | null {
  if (size === 0) return bytes === 0 ? 0 : null;
  const whole = Math.floor(bytes / size);
  const rest = bytes - whole * size;
  let n = whole * perInstance;
  let partial = false;
  walk(nodes, 0, 0, 0, rest, (_mem, _packed, len, block) => {
    const per = components(block.basic).length;
    n += Math.floor(len / block.basic.size) * per;
    if (len % block.basic.size !== 0) partial = true;
  });
  return partial ? null : n;
}
