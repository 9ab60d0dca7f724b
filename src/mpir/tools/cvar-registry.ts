import { type DeclaredTunable, declaredTunables } from '../../common/config.js';

/** Where a control variable's value comes from. */
export type CvarSource = 'default' | 'environment';

/** A TSMPI_* variable as MPI.T shows it (a control variable). */
export interface Cvar {
  readonly index: number;
  readonly name: string;
  /** The layer that declares it: the category it belongs to. */
  readonly category: string;
  readonly kind: DeclaredTunable<unknown>['kind'];
  readonly description: string;
  readonly defaultText: string;
  readonly rangeText: string;
  /** The value in effect (the environment's, validated, else the default): a number or a string (booleans read 0 or 1). */
  read(): number | string;
  source(): CvarSource;
}

let all: Cvar[] | null = null;

/**
 * Every TSMPI_* variable of every layer a rank loads, in declaration order. A rank loads every
 * layer's declarations with the runtime (boot opens every device's descriptor), so the registry
 * is whole without importing config-all.ts, which stands above mpir (test mpi/tools/pvars
 * checks one variable of each layer).
 */
export function cvarList(): readonly Cvar[] {
  if (all !== null) return all;
  all = declaredTunables().map((t, index): Cvar => ({
    index, name: t.name, category: t.layer, kind: t.kind, description: t.description, defaultText: t.defaultText,
    rangeText: t.rangeText,
    read: () => {
      const v = t.read(process.env);
      return typeof v === 'boolean' ? (v ? 1 : 0) : v as number | string;
    },
    source: () => ((process.env[t.name] ?? '').trim() === '' ? 'default' : 'environment'),
  }));
  return all;
}
