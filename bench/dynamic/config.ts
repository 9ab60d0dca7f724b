/**
 * The options of bench/dynamic, shared by spawn-bench.ts (parent and child) and
 * compare-dynamic.ts. spawn_bench.c parses the same flags with the same defaults (plus its own
 * `--world 1`, the baseline where MPICH cannot spawn), and
 * compare-dynamic passes every one of them explicitly, so the two sides cannot drift apart.
 */

/** osu_latency's and osu_bw's boundary between small and large messages (bytes). */
export const LARGE = 8192;
/** osu_bw's window: Isends in flight before the ack. */
export const WINDOW = 64;

export interface Config {
  spawn: number[];
  repeat: number;
  latSizes: number[];
  bwSizes: number[];
  iters: number;
  skip: number;
  itersLarge: number;
  skipLarge: number;
  bwIters: number;
  bwSkip: number;
  bwItersLarge: number;
  bwSkipLarge: number;
}

/** 1 B .. 1 MiB in powers of 4, as osu_latency prints every other row of its powers of 2. */
export const DEFAULT_LAT_SIZES = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576];
export const DEFAULT_BW_SIZES = [1024, 65536, 1048576];

/** Defaults below osu's (10000 small latency iterations): UCX over TCP costs tens of µs a trip. */
export const DEFAULTS = { spawn: '1,2,4', repeat: '5', iters: '1000', 'iters-large': '100', 'bw-iters': '100', 'bw-iters-large': '20' };

/** The argv of both sides: `--name value` pairs; unknown names are refused so a typo cannot pass. */
export function parseConfig(argv: readonly string[]): Config {
  const v = new Map<string, string>(Object.entries(DEFAULTS));
  v.set('lat-sizes', DEFAULT_LAT_SIZES.join(','));
  v.set('bw-sizes', DEFAULT_BW_SIZES.join(','));
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]!.replace(/^--/, '');
    if (!v.has(name) || argv[i + 1] === undefined) throw new Error(`spawn-bench: unknown option or missing value: ${argv[i]}`);
    v.set(name, argv[i + 1]!);
  }
  const list = (k: string): number[] => v.get(k)!.split(',').filter((s) => s !== '').map(Number);
  const num = (k: string): number => Number(v.get(k));
  // osu's warm-ups: a tenth of the timed iterations (at least one).
  const skip = (n: number): number => Math.max(1, Math.floor(n / 10));
  return {
    spawn: list('spawn'), repeat: num('repeat'), latSizes: list('lat-sizes'), bwSizes: list('bw-sizes'),
    iters: num('iters'), skip: skip(num('iters')), itersLarge: num('iters-large'), skipLarge: skip(num('iters-large')),
    bwIters: num('bw-iters'), bwSkip: skip(num('bw-iters')), bwItersLarge: num('bw-iters-large'), bwSkipLarge: skip(num('bw-iters-large')),
  };
}

/** The argv that spells out every option of `c` (what compare-dynamic gives both sides). */
export function configArgs(c: Config): string[] {
  return ['--spawn', c.spawn.join(','), '--repeat', String(c.repeat), '--lat-sizes', c.latSizes.join(','),
    '--bw-sizes', c.bwSizes.join(','), '--iters', String(c.iters), '--iters-large', String(c.itersLarge),
    '--bw-iters', String(c.bwIters), '--bw-iters-large', String(c.bwItersLarge)];
}
