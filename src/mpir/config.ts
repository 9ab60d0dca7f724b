// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import { declareChoice, declareInt, declareString, FLAG_LIST } from '../common/config.js';

/**
 * Collective algorithm selection. `auto` chooses by message size and process count (see each
 * family in src/mpir/coll/); any other value forces that algorithm on every call.
 */
const layer = 'mpir';

export const COLL_BARRIER = declareChoice({
  name: 'TSMPI_COLL_BARRIER', layer, default: 'auto', choices: ['auto', 'shm_counter', 'dissemination', 'linear'] as const,
  description: 'Barrier algorithm: shm_counter (SCI-MPICH hierarchical barrier: counter flags in a node-shared segment, ' +
    'n-ary tree of node leaders; auto on one node), dissemination (ceil(log2 p) rounds) or linear (gather to rank 0, then release).',
});

export const COLL_BCAST = declareChoice({
  name: 'TSMPI_COLL_BCAST', layer, default: 'auto', choices: ['auto', 'binomial', 'linear', 'scatter_allgather', 'pcast'] as const,
  description: 'Bcast algorithm: binomial tree (small), pcast (SCI-MPICH pipelined chain, from TSMPI_COLL_PCAST_MIN bytes), ' +
    'scatter + ring allgather, linear from the root.',
});

export const COLL_GATHER = declareChoice({
  name: 'TSMPI_COLL_GATHER', layer, default: 'auto', choices: ['auto', 'binomial', 'linear'] as const,
  description: 'Gather algorithm: binomial tree (auto below TSMPI_COLL_LARGE_BYTES in all) or linear (the root receives from each rank).',
});

export const COLL_SCATTER = declareChoice({
  name: 'TSMPI_COLL_SCATTER', layer, default: 'auto', choices: ['auto', 'binomial', 'linear'] as const,
  description: 'Scatter algorithm: binomial tree (SCI-MPICH for small messages; auto below TSMPI_COLL_LARGE_BYTES in all) or ' +
    'linear (the root sends to each rank).',
});

export const COLL_ALLGATHER = declareChoice({
  name: 'TSMPI_COLL_ALLGATHER', layer, default: 'auto',
  choices: ['auto', 'recursive_doubling', 'ring', 'shift', 'gather_bcast'] as const,
  description: 'Allgather algorithm: recursive doubling (power-of-two process counts), ring, shift (SCI-MPICH one-direction ' +
    'shift of block pairs, 1 + p/2 steps; auto for large blocks), or gather + bcast.',
});

export const COLL_ALLTOALL = declareChoice({
  name: 'TSMPI_COLL_ALLTOALL', layer, default: 'auto', choices: ['auto', 'pairwise', 'linear'] as const,
  description: 'Alltoall algorithm: pairwise exchange (p - 1 rounds; auto above 32 KiB sent per rank) or linear ' +
    '(all messages posted at once; auto up to 32 KiB).',
});

export const COLL_REDUCE = declareChoice({
  name: 'TSMPI_COLL_REDUCE', layer, default: 'auto', choices: ['auto', 'binomial', 'fanin_tree', 'rpipe', 'linear'] as const,
  description: 'Reduce algorithm: binomial tree, fanin_tree (SCI-MPICH: upward to higher ranks, fan-in ' +
    'TSMPI_COLL_REDUCE_FANIN), rpipe (pipelined chain, from TSMPI_COLL_RPIPE_MIN bytes), or linear (the root reduces in rank order).',
});

export const COLL_ALLREDUCE = declareChoice({
  name: 'TSMPI_COLL_ALLREDUCE', layer, default: 'auto',
  choices: ['auto', 'recursive_doubling', 'rabenseifner', 'ring', 'reduce_bcast', 'rpipe'] as const,
  description: 'Allreduce algorithm: recursive doubling (small or non-commutative), Rabenseifner (recursive-halving ' +
    'reduce-scatter + recursive-doubling allgather; large, commutative), ring reduce-scatter + allgather, reduce + bcast, ' +
    'or rpipe (SCI-MPICH: pipelined chain reduce, then pcast).',
});

export const COLL_REDUCE_SCATTER = declareChoice({
  name: 'TSMPI_COLL_REDUCE_SCATTER', layer, default: 'auto', choices: ['auto', 'reduce_scatterv', 'ring', 'overlap'] as const,
  description: 'Reduce_scatter(_block) algorithm: ring (commutative), overlap (SCI-MPICH: every rank sends each block straight ' +
    'to its owner, neighbour first, then the other parity group, then its own; commutative; auto for small vectors), ' +
    'or reduce to rank 0 + scatterv.',
});

export const COLL_SCAN = declareChoice({
  name: 'TSMPI_COLL_SCAN', layer, default: 'auto', choices: ['auto', 'recursive_doubling', 'linear', 'rpipe'] as const,
  description: 'Scan/Exscan algorithm: recursive doubling, linear (a chain through the ranks), or rpipe (the chain ' +
    'pipelined in blocks, from TSMPI_COLL_RPIPE_MIN bytes).',
});

export const COLL_LARGE_BYTES = declareInt({
  name: 'TSMPI_COLL_LARGE_BYTES', layer,
  description: 'Message size (bytes) from which auto selection takes the large-message algorithms ' +
    '(Rabenseifner allreduce, ring allgather, scatter + allgather bcast, linear gather and scatter).',
  default: 65536, min: 0, max: 1 << 30,
});

export const COLL_PIPE_BLOCK = declareInt({
  name: 'TSMPI_COLL_PIPE_BLOCK', layer,
  description: 'Block size (bytes) of the pipelined chain collectives (pcast, rpipe): each block is one eager message.',
  default: 32768, min: 64, max: 1 << 24,
});

export const COLL_PCAST_MIN = declareInt({
  name: 'TSMPI_COLL_PCAST_MIN', layer,
  description: 'Bcast size (bytes) from which auto selection takes pcast, the pipelined chain.',
  default: 262144, min: 0, max: 1 << 30,
});

export const COLL_RPIPE_MIN = declareInt({
  name: 'TSMPI_COLL_RPIPE_MIN', layer,
  description: 'Vector size (bytes) from which auto selection takes rpipe for Reduce, Allreduce and Scan.',
  default: 262144, min: 0, max: 1 << 30,
});

export const COLL_REDUCE_FANIN = declareInt({
  name: 'TSMPI_COLL_REDUCE_FANIN', layer,
  description: 'Fan-in of the fanin_tree reduce (SCI-MPICH chose 4 on its cluster).',
  default: 4, min: 2, max: 64,
});

/**
 * Small blocking collectives on a communicator whose ranks share one node's memory go through
 * a segment of per-rank cells (coll/shm-small.ts) instead of a schedule of messages: at 8 B on
 * 2 ranks 0.3-0.7 us a call against 1.2-2.0 us by schedule (docs/performance.md, "Collectives,
 * 2 ranks"). 1 KiB: the largest block a cell holds (each rank's cell has two of this size).
 */
export const COLL_SHM_SMALL = declareInt({
  name: 'TSMPI_COLL_SHM_SMALL', layer,
  description: 'Largest block (bytes per rank) of Barrier, Bcast, Reduce, Allreduce, Allgather and Alltoall that ' +
    'goes through per-rank cells in a node segment when all ranks of the communicator share one node (at most 64 ' +
    'ranks, blocking calls, contiguous data); 0 turns it off.',
  default: 1024, min: 0, max: 1 << 20,
});

export const COLL_BARRIER_GROUP = declareInt({
  name: 'TSMPI_COLL_BARRIER_GROUP', layer,
  description: 'Most ranks per flat check-in group of the shm_counter barrier: a node with more is split into groups, ' +
    'whose barrier processes join the tree of nodes (0: one group per node).',
  default: 0, min: 0, max: 1 << 20,
});

export const COLL_BARRIER_FANIN = declareInt({
  name: 'TSMPI_COLL_BARRIER_FANIN', layer,
  description: 'Fan-in of the tree of node leaders in the shm_counter barrier (balanced by eq. 6.5 of the thesis).',
  default: 8, min: 2, max: 64,
});

export const RMA_METHOD = declareChoice({
  name: 'TSMPI_RMA_METHOD', layer,
  description: 'How window operations reach the target (003b §3.2): auto (chosen per target from the memory capabilities ' +
    'of the device that reaches it, src/osc/select.ts; direct: loads, stores and CPU atomics when the ' +
    'window lies in a node segment, i.e. Allocate or Allocate_shared on one node; remote loads and checked stores, ' +
    'accumulates under the part\'s mutex, when it lies in exported SISCI memory, i.e. Allocate across SCI nodes or ' +
    'Create on MPI.Alloc_mem(type=shared) memory; otherwise the target\'s agent), emulated (everything through the ' +
    'agent, for comparison) or gather (through the agent, with Puts and Accumulates of up to TSMPI_RMA_GATHER_MAX bytes ' +
    'collected per target and sent as one message at the next synchronisation).',
  default: 'auto', choices: ['auto', 'emulated', 'gather'] as const,
});

export const RMA_GATHER_MAX = declareInt({
  name: 'TSMPI_RMA_GATHER_MAX', layer,
  description: 'Largest Put or Accumulate (bytes) the gather method collects; larger ones go at once.',
  default: 1024, min: 0, max: 1 << 30,
});

export const RMA_LOCK_POLICY = declareChoice({
  name: 'TSMPI_RMA_LOCK_POLICY', layer,
  description: 'Window locks (research 004, made one-sided; src/osc/lock-area.ts): each part\'s lock lives in memory ' +
    'its owner exposes; in cpu mode ranks of the owner\'s node take it with CPU compare-exchange, in device mode every ' +
    'rank takes it under Lamport\'s fast mutex with loads and stores only (what ranks of other SCI nodes can do). ' +
    'migrate: device mode when a rank of another node asks, cpu mode again when a rank of the node asks and no other ' +
    'node waits (004\'s policy); device: device mode for good; cpu: cpu mode for good, ranks of other nodes ask the ' +
    'owner\'s window agent (004\'s two-sided path, which needs the owner\'s MPI calls).',
  default: 'migrate', choices: ['migrate', 'cpu', 'device'] as const,
});

export const RMA_PSCW = declareChoice({
  name: 'TSMPI_RMA_PSCW', layer,
  description: 'Post/Start/Complete/Wait (003b §3.4.2): strict (Start waits until every target posted) or loose (Start ' +
    'returns at once; operations to a target that has not posted yet are kept, with a copy of their data, and issued ' +
    'when its post arrives, at the latest in Complete).',
  default: 'strict', choices: ['strict', 'loose'] as const,
});

export const RMA_REMOTE_PUT_MIN = declareInt({
  name: 'TSMPI_RMA_REMOTE_PUT_MIN', layer,
  description: 'Remote-put access (003b §3.2c): a Get through the target\'s agent of at least this many bytes into ' +
    'memory from MPI.Alloc_mem with info type=shared is written by the target straight into that memory (a checked ' +
    'remote write) instead of coming back as a message; 0 turns it off.',
  default: 16384, min: 0, max: 1 << 30,
});

export const WARMUP = declareChoice({
  name: 'TSMPI_WARMUP', layer,
  description: 'Warm-up in MPI.Init (src/mpir/warmup.ts): the ranks of a node pass small messages round a ring ' +
    'through Send/Recv, Isend/Irecv/Wait(all), Barrier, objects and unexpected windows, so V8 has optimized the ' +
    'message path before the program\'s first message (a fresh job\'s first 8-byte ping-pongs took 3-5 us, 0.15 once ' +
    'optimized), then writes V8\'s young generation through once and keeps its size (src/mpir/young-generation.ts: ' +
    'fresh pages fault at first touch, one every ~80 messages). auto: when the node\'s ranks each have a core (Init ' +
    'of 2 ranks then takes ~0.4 s longer on this project\'s 2-vCPU VM, mostly V8 compiling the path: 33-62 ms without ' +
    'it, 420-537 with it); on: always; off: never.',
  default: 'auto', choices: ['auto', 'on', 'off'] as const,
});

export const WARMUP_ROUNDS = declareInt({
  name: 'TSMPI_WARMUP_ROUNDS', layer,
  description: 'Rounds of the Init warm-up (TSMPI_WARMUP); each round passes one message of each warmed kind to the ' +
    'next rank of the node.',
  default: 1000, min: 1, max: 1_000_000,
});

export const V8_FLAGS = declareString({
  name: 'TSMPI_V8_FLAGS', layer,
  description: 'V8 flags MPI.Init sets for the rest of the run on a rank with a core of its own (v8.setFlagsFromString; ' +
    'none: leave V8 as it is; ranks that outnumber the cores never get them: they slowed waits that yield the core). ' +
    'The default is for the program\'s timed loop, compiled while it runs (on-stack replacement): its functions get ' +
    'their type feedback from their first call, not after ~1 KiB of their bytecode ran (so what a loop did in its first ' +
    'round counts, and V8 does not throw the compiled loop away when it reaches that code again); a marked loop is ' +
    'compiled after ~20 more rounds instead of ~500; code is optimized again after ~8 KiB of its bytecode instead of ' +
    '~66 KiB. A fresh job\'s first timed osu_latency row (1,000 or 2,000 untimed round trips before it) took the warm ' +
    'figure with them, 2-3 x it without: the compile (5-9 ms a rank, the peer waiting) fell into the timed part. The ' +
    'optimizing compiler may inline twice the bytecode into one function (1840 bytes, not 920): with V8\'s budget Isend ' +
    'spent it on the argument checks and called the header writer and the counters out of line, 200 ns a message ' +
    'instead of 130 (osu_bw\'s 8-byte row 38-40 MB/s, 47-48 with it). (Flags V8 reads only at start-up, such as ' +
    '--single-threaded or --no-concurrent-recompilation, do nothing here.)',
  default: '--interrupt-budget=8192 --invocation-count-for-osr=20 --no-lazy-feedback-allocation ' +
    '--max-inlined-bytecode-size-cumulative=1840',
  pattern: FLAG_LIST, patternText: 'none or V8 flags (--name or --name=value, space-separated)',
});

export const V8_FLAGS_AFTER_INIT = declareString({
  name: 'TSMPI_V8_FLAGS_AFTER_INIT', layer,
  description: 'V8 flags MPI.Init sets at its end, after its warm-up, where it set TSMPI_V8_FLAGS (none: nothing). ' +
    'A trade for programs that time their first loop: --max-inlined-bytecode-size-cumulative=920 gives back V8\'s own ' +
    'inlining budget, so the message path, compiled during the warm-up, keeps the deeper inlining while the ' +
    'program\'s own loops, compiled later, inline less of it. A ping-pong loop timed as programs time it (the clock ' +
    'started after the untimed round trips, so V8 compiles the loop again inside the timed part) then compiles in ' +
    '1-4 ms instead of 11-16, its first timed row 0.37-0.57 us instead of 1.41-1.82 (warm 0.18-0.30); but a loop of ' +
    'Allreduce, or of calls the warm-up does not make (Reduce, Compare_and_swap), inlines less for good: osu_allreduce ' +
    'at 8 B took ~10 % longer (6 alternating pairs of fresh jobs). Not the default: a program runs its loops far ' +
    'longer than one compile.',
  default: 'none',
  pattern: FLAG_LIST, patternText: 'none or V8 flags (--name or --name=value, space-separated)',
});
