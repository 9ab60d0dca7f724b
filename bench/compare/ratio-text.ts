/**
 * How bench/compare prints a ratio tsmpi / MPICH: 2 decimals, or 2 significant digits below 0.1
 * (0.0038, not 0.00); a dash when there is none. compare.js and small-messages.js's report both.
 */
export function ratioText(r: number | null): string {
  if (r === null) return '—';
  return r >= 0.1 || r === 0 ? r.toFixed(2) : r.toPrecision(2);
}
