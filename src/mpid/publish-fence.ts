import { TOTAL_STORE_ORDER } from '../common/shared-load.js';
import { addon } from '../native/addon.js';
import type { BusinessCard } from './business-card.js';

/**
 * How a rank that publishes something in shared memory (a ch_shmem packet, a small collective's
 * word) makes sure a peer about to sleep on its doorbell sees it: a Dekker pair, each side
 * stores, then loads what the other stored.
 *
 *   publisher:  store the packet's flag;  load SLEEPING;  ring if set
 *   sleeper:    SLEEPING += 1;            check every queue;  futex_wait
 *
 * Symmetric: the flag is a sequentially consistent store. On x86 that is a locked instruction,
 * which waits until the flag's cache line (the one the receiver is polling) is ours: a stall
 * of ~100 ns per packet when the two ranks run on cores of different caches.
 *
 * Asymmetric: publishers store plainly (x86 keeps stores in order, so the flag still comes after
 * the payload), and the sleeper, after SLEEPING += 1, calls membarrier(2), which runs a full
 * barrier on every CPU that runs a registered process. A publisher whose load of SLEEPING came
 * after that barrier sees the sleeper; one whose load came before it had its store drained by
 * the barrier, so the sleeper's check sees the packet. The sleeper pays the system call (1 us
 * on this VM when no other CPU runs a registered rank, 43 us when one spins there), so it is
 * used only when every rank of the machine has a core: such a rank spins its long budget of
 * polls (progress.ts) before it sleeps.
 *
 * Every rank of the machine must agree, or a plain store could meet a sleeper that did not
 * fence: the cards decide. A rank that registered with membarrier publishes `fence=<cores it
 * may run on>`; the mode is asymmetric only if every card on our kernel has one and the
 * kernel's ranks fit the fewest of those cores.
 */

/** Step 1, before the cards are exchanged: registers the process; its card's fenceCores (null: not taking part). */
export function joinAsymmetricFence(enabled: boolean, cores: number): number | null {
  if (!enabled || !TOTAL_STORE_ORDER || !addon.membarrierRegister()) return null;
  return cores;
}

/** Step 2: whether ranks on our kernel publish with plain stores (every rank computes the same answer). */
export function asymmetricFenceFor(mine: BusinessCard, cards: readonly BusinessCard[]): boolean {
  let ranks = 0;
  let cores = Infinity;
  for (const c of cards) {
    if (c.kernelId !== mine.kernelId) continue;
    if (c.fenceCores === null) return false;
    ranks++;
    cores = Math.min(cores, c.fenceCores);
  }
  return ranks <= cores;
}
