import os from 'node:os';
import { MPI, type Intracomm } from '../../../src/index.js';

/**
 * What the large tests share: the memory check that lets a test skip, saying why, on a machine
 * that cannot hold its buffers (CI has 24 GiB), and a word pattern that gives every 32-bit
 * word of a buffer its own value, so that data landing at a wrong offset (a length or an
 * offset cut to 32 bits) can never pass for the right data.
 */

/**
 * Whether the node has `bytes` of memory available (os.freemem: MemAvailable), decided by
 * rank 0 for every rank (the ranks share the node). When not, rank 0 prints why, and the
 * test passes without running: the feature is not at fault, the machine is too small.
 */
export function enoughMemory(comm: Intracomm, bytes: number, test: string): boolean {
  const answer = Int32Array.of(0);
  if (comm.rank === 0) {
    const free = os.freemem();
    answer[0] = free >= bytes ? 1 : 0;
    if (answer[0] === 0) {
      process.stdout.write(`${test}: skipped: needs ${gib(bytes)} GiB of free memory, the node has ${gib(free)} GiB ` +
        `(of ${gib(os.totalmem())} GiB)\n`);
    }
  }
  comm.Bcast(answer, 0);
  return answer[0] === 1;
}

function gib(bytes: number): string {
  return (bytes / 2 ** 30).toFixed(1);
}

/** The value of word `k` (its index from the start of its buffer) under `seed`: a bijection of k mod 2^32. */
export function wordAt(k: number, seed: number): number {
  return Math.imul(k, 0x9e3779b1) ^ seed;
}

/** Fills words[from, to) with the pattern of their own indices. */
export function fillWords(words: Int32Array, from: number, to: number, seed: number): void {
  for (let k = from; k < to; k++) words[k] = wordAt(k, seed);
}

/** First index in words[from, to) that breaks the pattern of `seed` shifted by `shift` words (-1: none). */
export function findWordError(words: Int32Array, from: number, to: number, seed: number, shift = 0): number {
  for (let k = from; k < to; k++) if (words[k] !== wordAt(k + shift, seed)) return k;
  return -1;
}

export { MPI };
