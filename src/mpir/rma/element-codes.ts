import { walk } from '../dtype/cursor.js';
import { Datatype, Datatypes, type ElementKind } from '../datatype.js';
import { Ops, type Op } from '../op.js';
import {
  KIND_BOOL, KIND_DOUBLE_INT, KIND_FLOAT32, KIND_FLOAT64, KIND_FLOAT_INT, KIND_INT16, KIND_INT32, KIND_INT64, KIND_INT8,
  KIND_LONG_INT, KIND_PACKED, KIND_SHORT_INT, KIND_TWOINT, KIND_UINT16, KIND_UINT32, KIND_UINT64, KIND_UINT8,
  OP_BAND, OP_BOR, OP_BXOR, OP_LAND, OP_LOR, OP_LXOR, OP_MAX, OP_MAXLOC, OP_MIN, OP_MINLOC, OP_NO_OP, OP_PROD, OP_REPLACE,
  OP_SUM, type Reducer,
} from '../../osc/index.js';

/**
 * The face's side of osc's vocabulary (src/osc/codes.ts): a datatype as the kind of its basic
 * elements plus, for a derived target type, its (offset, length) blocks; an Op as its code; and
 * the Reducer osc's agent and mutex path apply accumulates with (the Op kernels, native ones
 * among them).
 */

const SCALAR_KIND: Readonly<Record<ElementKind, number>> = {
  int8: KIND_INT8, uint8: KIND_UINT8, int16: KIND_INT16, uint16: KIND_UINT16, int32: KIND_INT32, uint32: KIND_UINT32,
  int64: KIND_INT64, uint64: KIND_UINT64, float32: KIND_FLOAT32, float64: KIND_FLOAT64, bool: KIND_BOOL,
  pair: KIND_PACKED, packed: KIND_PACKED,
};
const PAIRS: readonly (readonly [Datatype, number])[] = [
  [Datatypes.FLOAT_INT, KIND_FLOAT_INT], [Datatypes.DOUBLE_INT, KIND_DOUBLE_INT], [Datatypes.LONG_INT, KIND_LONG_INT],
  [Datatypes.TWOINT, KIND_TWOINT], [Datatypes.SHORT_INT, KIND_SHORT_INT],
];
/** The predefined type standing for each kind where Op kernels run (indexed by kind). */
const TYPE_OF_KIND: readonly Datatype[] = [
  Datatypes.INT8_T, Datatypes.BYTE, Datatypes.INT16_T, Datatypes.UINT16_T, Datatypes.INT32_T, Datatypes.UINT32_T,
  Datatypes.INT64_T, Datatypes.UINT64_T, Datatypes.FLOAT, Datatypes.DOUBLE, Datatypes.C_BOOL, Datatypes.FLOAT_INT,
  Datatypes.DOUBLE_INT, Datatypes.LONG_INT, Datatypes.TWOINT, Datatypes.SHORT_INT, Datatypes.PACKED,
];

/** The kind of every predefined datatype, looked up by identity (on every operation). */
const KIND_OF_TYPE = new Map<Datatype, number>(Object.values(Datatypes).map((t) => [t, t.kind === 'pair'
  ? PAIRS.find(([p]) => p === t)?.[1] ?? KIND_PACKED : SCALAR_KIND[t.kind]]));

/** The element kind of a predefined datatype. */
export function kindOf(dt: Datatype): number {
  return KIND_OF_TYPE.get(dt)!;
}

const OP_CODES = new Map<Op, number>([
  [Ops.SUM, OP_SUM], [Ops.PROD, OP_PROD], [Ops.MAX, OP_MAX], [Ops.MIN, OP_MIN], [Ops.LAND, OP_LAND], [Ops.LOR, OP_LOR],
  [Ops.LXOR, OP_LXOR], [Ops.BAND, OP_BAND], [Ops.BOR, OP_BOR], [Ops.BXOR, OP_BXOR], [Ops.MAXLOC, OP_MAXLOC],
  [Ops.MINLOC, OP_MINLOC], [Ops.REPLACE, OP_REPLACE], [Ops.NO_OP, OP_NO_OP],
]);
const OP_OF_CODE: readonly Op[] = (() => {
  const ops: Op[] = [];
  for (const [op, code] of OP_CODES) ops[code] = op;
  return ops;
})();
/** The codes by Op handle (an index, on every accumulate); -1 for OP_NULL. */
const CODE_OF_HANDLE: readonly number[] = (() => {
  const codes: number[] = [];
  for (const op of Object.values(Ops)) codes[op.handle] = OP_CODES.get(op) ?? -1;
  return codes;
})();

/** The code of a predefined op other than OP_NULL, or undefined (user ops and OP_NULL are not for one-sided calls). */
export function opCode(op: Op): number | undefined {
  const code = op.predefined ? CODE_OF_HANDLE[op.handle] : undefined;
  return code !== undefined && code >= 0 ? code : undefined;
}

/** Accumulates by the Op kernels, on the kind's standing type. */
export const opReducer: Reducer = {
  reduce(op, kind, src, dst, count) {
    OP_OF_CODE[op]!.apply(src, dst, count, TYPE_OF_KIND[kind]!);
  },
};

/**
 * The (offset, length) blocks of `count` instances of a derived type, in type-map order, with
 * neighbours merged, and the lowest and highest byte touched.
 */
export function blocksOf(dt: Datatype, count: number): { list: Float64Array; lo: number; hi: number } {
  const out: number[] = [];
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < count; i++) {
    const base = i * dt.extent;
    walk(dt.flat, 0, 0, 0, dt.size, (mem: number, _packed: number, len: number) => {
      const o = base + mem;
      const last = out.length - 2;
      if (last >= 0 && out[last]! + out[last + 1]! === o) out[last + 1]! += len;
      else out.push(o, len);
      if (o < lo) lo = o;
      if (o + len > hi) hi = o + len;
    });
  }
  return { list: Float64Array.from(out), lo: out.length > 0 ? lo : 0, hi: out.length > 0 ? hi : 0 };
}

const DATATYPES: readonly Datatype[] = Object.values(Datatypes);

/** The predefined type of a derived type's single basic kind, or null when it mixes kinds. */
export function basicOf(dt: Datatype): Datatype | null {
  const match = DATATYPES.find((t) => t.predefined && t.kind === dt.kind && t !== Datatypes.DATATYPE_NULL && t !== Datatypes.PACKED);
  return match ?? null;
}
