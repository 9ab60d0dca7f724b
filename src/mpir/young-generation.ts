import { nodeV8 } from '../common/node-v8.js';
import type v8 from 'node:v8';

/**
 * The young generation's pages, written once before the program's first message.
 *
 * Every Isend and Irecv gives the program a fresh Request handle (mpi4py's API; 48 bytes), so a
 * message stream allocates ~50 bytes a message and V8's young generation (two semispaces, 8 MiB
 * together when Init returns) is allocated through page by page. Memory the process has not yet
 * written costs a page fault at its first touch: 12-16 µs on this VM (~0.2 on bare metal), one
 * every ~80 messages. 8-byte osu_bw windows took 14 µs in some runs and 18-28 in others: those
 * whose ranks were still allocating through fresh pages (~80 faults a 6,400-message row, 0-3
 * after this), for the first few hundred thousand messages and again each time V8 grew the
 * space. So Init, on ranks that warm up (warmup.ts), (1) keeps the young generation at the size
 * Init left it (V8 doubles it when enough objects survive its collections; a growth factor of 1,
 * set at run time, stops that, so a program that allocates a lot collects its young objects
 * somewhat more often), and (2) allocates short-lived arrays until two scavenges have passed,
 * which writes both semispaces once: 10-25 ms of Init.
 */
const GROWTH_FLAG = '--semi-space-growth-factor=1';
/** An array of this many holes is 8 KiB of young generation, two pages written. */
const ARRAY_LENGTH = 1000;
/** Arrays made between two looks at the young generation (128 KiB). */
const ARRAYS_PER_LOOK = 16;
/** Where the arrays go, so no compiler can drop them; cleared at the end. */
const sink: unknown[] = [null];

export function settleYoungGeneration(): void {
  nodeV8().setFlagsFromString(GROWTH_FLAG);
  passScavenges(2);
}

/**
 * Allocates short-lived arrays until `count` scavenges have passed, so the young generation is
 * empty when this returns (bounded, should a scavenge ever leave more in the space than it
 * found: four times the space's size per scavenge). The OMB ports call it before a row when the
 * space is more than half full (tableSizes in bench/osu/util.ts).
 */
export function passScavenges(count: number): void {
  const limit = 4 * count * youngGeneration().space_size;
  let used = youngGeneration().space_used_size;
  let scavenges = 0;
  for (let made = 0; scavenges < count && made < limit; made += ARRAYS_PER_LOOK * ARRAY_LENGTH * 8) {
    for (let i = 0; i < ARRAYS_PER_LOOK; i++) sink[0] = new Array(ARRAY_LENGTH);
    const now = youngGeneration().space_used_size;
    if (now < used) scavenges++;
    used = now;
  }
  sink[0] = null;
}

export function youngGeneration(): v8.HeapSpaceInfo {
  for (const space of nodeV8().getHeapSpaceStatistics()) if (space.space_name === 'new_space') return space;
  throw new Error('V8 reports no new_space');
}
