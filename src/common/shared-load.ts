/**
 * Reading a word another process stores to, on the paths every message takes (a ring's sequence
 * word, a doorbell's SLEEPING count, a collective's stamp).
 *
 * Node 20's V8 compiles `Atomics.load` to a call of a runtime builtin, ~12 ns on this project's
 * VM, against ~1 ns for a typed array read (a loop of each, 10^7 reads). On x86 the two are the
 * same instruction once there: a sequentially consistent load is a plain `mov` under total store
 * order (the fence, where one is needed, belongs to the stores: mpid/publish-fence.ts), and loads
 * are not reordered with older loads, so what a reader sees after the word is at least what the
 * writer stored before it. What remains is the compiler: TurboFan keeps typed-array element
 * loads in program order and reads memory each time (it does not eliminate or hoist them, as it
 * may a plain object's field), which `test/unit/common/shared-load.test.ts` checks with an
 * optimized spin on a word another thread sets. Elsewhere (arm64's loads may pass each other)
 * the read stays `Atomics.load`.
 */

/**
 * x86's total store order: stores become visible in program order, and so are loads performed.
 * The asymmetric fence (mpid/publish-fence.ts) rests on the first, loadShared on the second.
 */
export const TOTAL_STORE_ORDER = process.arch === 'x64' || process.arch === 'ia32';

/** words[at], as fresh as Atomics.load's and ordered before the reads that follow it. */
export function loadShared(words: Int32Array, at: number): number {
  return TOTAL_STORE_ORDER ? words[at]! : Atomics.load(words, at);
}
