import type { NodeRegion } from '../../mpid/memory.js';
import type { World } from '../../mpid/world.js';
import type { CommCore } from '../comm.js';
import { COLL_BARRIER_FANIN, COLL_BARRIER_GROUP } from '../config.js';
import { Schedule, launch } from './schedule.js';
import { shareNodeSegment } from './node-segment.js';

/**
 * SCI-MPICH's hierarchical shared-memory barrier (003c §1.5, "HSB"), on one machine's shared
 * memory:
 *
 *  - Inside a node, a flat tree: every member writes its barrier generation into its own word
 *    of the node's check-in line (the thesis increments one counter; a generation per member
 *    keeps several non-blocking barriers in flight apart, where a shared counter would let a
 *    member's second arrival stand in for another member's first); the node's barrier process
 *    (its lowest rank) waits until every word reached the generation.
 *  - Between nodes, an n-ary tree of the barrier processes with the thesis's adaptive fan-in
 *    (eq. 6.5: f_opt = f - floor((ceil(K/f)*f - K) / ceil(K/f)), f = TSMPI_COLL_BARRIER_FANIN):
 *    check-in messages up the tree, check-out messages down. On SCI these are remote writes;
 *    here they are point-to-point messages between the nodes' leaders.
 *  - Check-out: the barrier process stores the generation into the check-out word, which sits
 *    on a cache line of its own, and every member waits for it.
 *
 * Waiting is a schedule poll, so Ibarrier works the same way, and a waiting rank sleeps in the
 * progress engine: whoever writes a word another rank waits for rings that rank's doorbell.
 *
 * The node's segment is made by the first shm_counter barrier of a communicator, inside its
 * schedule (no blocking setup, so a first Ibarrier cannot deadlock a correct program): the
 * leader creates it and sends its name to the members, who map it and acknowledge in the
 * segment; the leader then unlinks the name.
 *
 * Research ids cited here: see docs/references.md.
 */

/** Words per cache line. */
const LINE = 16;

interface NodeState {
  /** Comm ranks on this node, lowest first; [0] is the node's barrier process. */
  readonly members: number[];
  /** Our index in `members`. */
  readonly index: number;
  /** The barrier processes of all nodes (comm ranks), ordered by their rank. */
  readonly leaders: number[];
  region: NodeRegion | null;
  /** Barriers started on this communicator with this algorithm. */
  generation: number;
  readonly checkout: number;
  readonly ack: number;
}

const states = new WeakMap<CommCore, NodeState>();

function stateFor(s: Schedule, world: World): { state: NodeState; fresh: boolean } {
  const core = s.core;
  const had = states.get(core);
  if (had !== undefined) return { state: had, fresh: false };
  // Group the communicator's ranks by node: a rank is on our node when we can map its memory;
  // for the other nodes, group by the node ids of the business cards.
  // TSMPI_COLL_BARRIER_GROUP splits a node into groups of at most that many ranks, each with
  // its own segment and barrier process in the tree.
  const nodeOf = (r: number) => world.cards[core.worldRanks[r]!]!.nodeId;
  const byNode = new Map<string, number[]>();
  for (let r = 0; r < core.size; r++) {
    const node = nodeOf(r);
    const list = byNode.get(node);
    if (list === undefined) byNode.set(node, [r]);
    else list.push(r);
  }
  const groups: number[][] = [];
  for (const ranks of byNode.values()) {
    const g = groupSize > 0 ? groupSize : ranks.length;
    for (let i = 0; i < ranks.length; i += g) groups.push(ranks.slice(i, i + g));
  }
  const members = groups.find((g) => g.includes(core.rank))!;
  const leaders = groups.map((g) => g[0]!).sort((a, b) => a - b);
  const lines = Math.ceil(members.length / LINE);
  const state: NodeState = {
    members, index: members.indexOf(core.rank), leaders, region: null, generation: 0,
    checkout: lines * LINE, ack: (lines + 1) * LINE,
  };
  states.set(core, state);
  return { state, fresh: true };
}

/** The fan-in of the leaders' tree for K nodes (eq. 6.5). */
export function balancedFanin(nodes: number, fanin: number): number {
  const groups = Math.ceil(nodes / fanin);
  return Math.max(2, fanin - Math.floor((groups * fanin - nodes) / groups));
}

const faninSetting = COLL_BARRIER_FANIN.read();
const groupSize = COLL_BARRIER_GROUP.read();

/**
 * Whether the algorithm applies: some node holds two or more of the communicator's ranks, and
 * ranks of a node talk through shared memory (not under TSMPI_DEVICE=sci). Every rank must
 * reach the same answer, so it comes from the business cards, which all ranks share, and not
 * from what this rank maps (a rank alone on its node would otherwise pick another algorithm
 * than the others and the barrier would never end).
 */
export function shmBarrierUseful(core: CommCore, world: World): boolean {
  if (!world.nodesUseSharedMemory || world.nodeMemory === null) return false;
  const seen = new Set<string>();
  for (let r = 0; r < core.size; r++) {
    const node = world.cards[core.worldRanks[r]!]!.nodeId;
    if (seen.has(node)) return true;
    seen.add(node);
  }
  return false;
}

/**
 * The barrier's rounds. A persistent barrier (`persistent`) runs them at every Start, so the
 * node's segment is made by a schedule of its own, started now, that the barrier's polls wait
 * for; and each run takes the next generation when it starts.
 */
export function barrierShmCounter(s: Schedule, world: World, persistent = false): void {
  const { state, fresh } = stateFor(s, world);
  const { members, index } = state;
  const leader = index === 0;
  if (fresh && members.length > 1) {
    if (persistent) {
      const made = new Schedule(s.core, world.engine, s.tag, `${s.call} (node segment)`);
      setup(made, world, state);
      launch(world, made);
      world.engine.free(made.request);
    } else setup(s, world, state);
  }
  let g = 0;
  let done = false;
  s.prepare(() => {
    g = ++state.generation;
    done = false;
  });
  const wake = (commRank: number) => world.wakeLocal(s.core.worldRanks[commRank]!);

  // Check-in.
  s.round();
  if (!leader) {
    s.poll(() => {
      const region = state.region;
      if (region === null) return false;
      if (!done) {
        done = true;
        raise(region.words, index, g);
        wake(members[0]!);
      }
      return true;
    });
  } else if (members.length > 1) {
    s.poll(() => {
      const region = state.region;
      if (region === null) return false;
      for (let i = 1; i < members.length; i++) if (Atomics.load(region.words, i) - g < 0) return false;
      return true;
    });
  }
  if (leader) leaderTree(s, state.leaders);
  // Check-out.
  if (leader && members.length > 1) {
    s.round().local(() => {
      raise(state.region!.words, state.checkout, g);
      for (let i = 1; i < members.length; i++) wake(members[i]!);
    });
  } else if (!leader) {
    s.round().poll(() => Atomics.load(state.region!.words, state.checkout) - g >= 0);
  }
}

/**
 * Stores generation g unless a later one is there already: barriers in flight together may
 * finish their steps out of order (one whose members all arrived completes as it starts), and
 * a generation word must never go back.
 */
function raise(words: Int32Array, at: number, g: number): void {
  if (Atomics.load(words, at) - g < 0) Atomics.store(words, at, g);
}

/** Check-in up and check-out down the n-ary tree of the nodes' barrier processes. */
function leaderTree(s: Schedule, leaders: readonly number[]): void {
  const k = leaders.length;
  if (k < 2) return;
  const f = balancedFanin(k, faninSetting);
  const me = leaders.indexOf(s.core.rank);
  const parent = me === 0 ? -1 : leaders[Math.floor((me - 1) / f)]!;
  const children: number[] = [];
  for (let c = me * f + 1; c <= me * f + f && c < k; c++) children.push(leaders[c]!);
  const token = new Uint8Array(0);
  if (children.length > 0) {
    s.round();
    for (const c of children) s.recv(token, c);
  }
  if (parent >= 0) s.round().send(token, parent).round().recv(new Uint8Array(0), parent);
  if (children.length > 0) {
    s.round();
    for (const c of children) s.send(token, c);
  }
}

/** Rounds that make the node's segment (node-segment.ts); members count in at word `ack`. */
function setup(s: Schedule, world: World, state: NodeState): void {
  const bytes = Math.max(4096, (state.ack + LINE) * 4);
  shareNodeSegment(s, world, state.members, bytes, state.ack, (region) => {
    state.region = region;
  });
}
