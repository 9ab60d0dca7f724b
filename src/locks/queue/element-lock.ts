/**
 * The decentralized lock-based baseline of research seed 002 ("bd", Fig. 1b, §3.2): "the same
 * as the non-blocking queue except that it uses locks; locks are per element: before working
 * with an element or a head/tail reference a process takes the lock of that element".
 *
 * It is the lock-free queue's code (lockfree.ts: layout, encodings, hints, bcast, cleaning)
 * run with `locked = true`: every element and every hint word (h, t, s) has a lock word in
 * front of it (a CAS spin lock: 0 free, else holder + 1, waiting through Waiter.pause), and
 * each atomic step of the lock-free algorithm becomes lock; Get (+ compare, Put); unlock on
 * that one unit. An element is read as a consistent snapshot under its lock. A process holds
 * at most one lock at a time, so there is no deadlock. The observation word o has no lock (only
 * its owner writes it, with Accumulate(REPLACE)).
 *
 * Research ids cited here: see docs/references.md.
 */
export { ELEMENT_LOCK } from './lockfree.js';
