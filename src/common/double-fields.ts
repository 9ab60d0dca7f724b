/**
 * Makes the named number fields of `counters` hold doubles from the start, at zero. V8 gives an
 * object's field the representation of the first value stored there: a counter that starts at 0
 * holds small integers, and the first sum past 2^31 (a byte count passes it after 2 GiB, within a
 * second of streaming) changes the field to a double, which throws away every function compiled
 * against the object. osu_bw's default table showed it: after its untimed pass up to 4 MiB, the
 * send path was compiled again inside the first timed row (1 B), which ran at a third of its
 * speed. A field that started as a double stays one (representations only widen).
 */
export function startAsDoubles<T extends object>(counters: T, ...fields: (keyof T & string)[]): T {
  const c = counters as Record<string, number>;
  for (const f of fields) {
    c[f] = 0.5;
    c[f] = 0;
  }
  return counters;
}
