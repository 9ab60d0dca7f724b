/** An argument as error messages show it: a number or string with its type, an object by its class. */
export function describe(x: unknown): string {
  if (x === null) return 'null';
  if (x === undefined) return 'undefined';
  if (typeof x === 'object') return (x as object).constructor?.name ?? 'object';
  return `${typeof x} ${String(x)}`;
}
