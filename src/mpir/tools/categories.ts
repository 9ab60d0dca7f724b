import { cvarList } from './cvar-registry.js';
import { PVAR_CATEGORY_TEXT, pvarList } from './pvar-registry.js';

/** One category per layer or device: its TSMPI_* variables and its performance variables. */
export interface Category {
  readonly index: number;
  readonly name: string;
  readonly description: string;
  readonly cvars: readonly number[];
  readonly pvars: readonly number[];
}

let all: Category[] | null = null;

export function categoryList(): readonly Category[] {
  if (all !== null) return all;
  const pvars = pvarList();
  const cvars = cvarList();
  const names: string[] = [];
  for (const v of [...cvars, ...pvars]) if (!names.includes(v.category)) names.push(v.category);
  all = names.map((name, index) => ({
    index, name,
    description: PVAR_CATEGORY_TEXT.get(name) ?? `The ${name} layer`,
    cvars: cvars.filter((c) => c.category === name).map((c) => c.index),
    pvars: pvars.filter((p) => p.category === name).map((p) => p.index),
  }));
  return all;
}
