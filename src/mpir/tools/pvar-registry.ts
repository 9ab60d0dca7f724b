import { DEVICES } from '../../boot/devices.js';
import { ENGINE_PVARS, sentThroughPvars } from '../../mpid/engine-pvars.js';
import type { PvarClass, PvarSpec, PvarTable } from '../../mpid/pvars.js';
import { OSC_PVARS, oscCounters } from '../../osc/index.js';
import { COLL_PVARS, collCounts } from '../coll/algorithm-counts.js';
import { IO_PVARS, ioCounts } from '../io/io-counts.js';
import { toolsWorld } from './world-binding.js';

/** A performance variable as MPI.T shows it: its declaration, its category and how to read it now. */
export interface Pvar {
  readonly index: number;
  readonly name: string;
  readonly varClass: PvarClass;
  readonly unit: string;
  readonly description: string;
  readonly category: string;
  /** Levels and high-water marks are always active (MPI_T continuous); counters are started and stopped. */
  readonly continuous: boolean;
  /** Levels and high-water marks cannot be reset or written. */
  readonly readonly: boolean;
  /** The value now, since the process started; 0 when the object that keeps it does not run on this rank. */
  read(): number;
}

/** A category's description, for the categories made of performance-variable tables. */
export const PVAR_CATEGORY_TEXT = new Map<string, string>();

let all: Pvar[] | null = null;

/** Every performance variable of this build, in a fixed order (the same indices on every rank). */
export function pvarList(): readonly Pvar[] {
  if (all !== null) return all;
  const list: Pvar[] = [];
  const add = <S>(category: string, specs: readonly PvarSpec<S>[], locate: () => S | null): void => {
    for (const spec of specs) {
      if (list.some((p) => p.name === spec.name)) throw new Error(`MPI.T: performance variable ${spec.name} declared twice`);
      const counter = spec.varClass === 'counter';
      list.push({
        index: list.length, name: spec.name, varClass: spec.varClass, unit: spec.unit, description: spec.description, category,
        continuous: !counter, readonly: !counter,
        read: () => {
          const source = locate();
          return source === null ? 0 : spec.read(source);
        },
      });
    }
  };
  const table = <S>(t: PvarTable<S>, locate: () => S | null): void => {
    if (!PVAR_CATEGORY_TEXT.has(t.category)) PVAR_CATEGORY_TEXT.set(t.category, t.description);
    add(t.category, t.variables, locate);
  };
  const engine = () => toolsWorld()?.engine ?? null;
  table(ENGINE_PVARS, engine);
  for (const d of DEVICES) {
    PVAR_CATEGORY_TEXT.set(d.name, d.pvars?.description ?? `Device ${d.name}: what mpid sent through it`);
    add(d.name, sentThroughPvars(d.name), engine);
    if (d.pvars !== undefined) table(d.pvars, () => toolsWorld()?.device(d.name) ?? null);
  }
  table(OSC_PVARS, () => oscCounters);
  table(COLL_PVARS, () => collCounts);
  table(IO_PVARS, () => ioCounts);
  all = list;
  return list;
}
