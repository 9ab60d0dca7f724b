/**
 * Graph and distributed graph topologies, and the neighbour collectives on all three kinds,
 * checked against a reference computed from the neighbour lists. Receive buffers carry one
 * sentinel block at the end and keep their initial content in the blocks of MPI.PROC_NULL.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const K = 3; // ints per block
const SENTINEL = -7;

/** What rank r puts in block j of its sendbuf (alltoall) or its whole sendbuf (j = -1, allgather). */
const value = (r: number, j: number, k: number): number => r * 10000 + (j + 1) * 100 + k;

function checkBlocks(label: string, recv: Int32Array, expected: Array<[number, number] | null>): void {
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i]!;
    for (let k = 0; k < K; k++) {
      const want = e === null ? SENTINEL : value(e[0], e[1], k);
      if (recv[i * K + k] !== want) {
        t.check(false, `${label}: block ${i} element ${k} is ${recv[i * K + k]}, expected ${want}`);
        return;
      }
    }
  }
  for (let k = 0; k < K; k++) t.equal(recv[expected.length * K + k], SENTINEL, `${label}: sentinel block untouched`);
}

interface Neighborly {
  Neighbor_allgather(s: unknown, r: unknown): void;
  Neighbor_alltoall(s: unknown, r: unknown): void;
  Ineighbor_allgather(s: unknown, r: unknown): InstanceType<typeof MPI.Request>;
  Ineighbor_alltoall(s: unknown, r: unknown): InstanceType<typeof MPI.Request>;
  Neighbor_allgatherv(s: unknown, r: unknown): void;
  Neighbor_alltoallv(s: unknown, r: unknown): void;
  Ineighbor_alltoallv(s: unknown, r: unknown): InstanceType<typeof MPI.Request>;
  Neighbor_alltoallw(s: unknown, r: unknown): void;
  Ineighbor_alltoallw(s: unknown, r: unknown): InstanceType<typeof MPI.Request>;
  neighbor_allgather(obj: unknown): unknown[];
  neighbor_alltoall(objs: unknown[]): unknown[];
}

/** Blocking forms, then both non-blocking forms in flight together. */
function run(label: string, comm: Neighborly, ins: number[], outs: number[], expectAlltoall: Array<[number, number] | null>): void {
  const expectAllgather = ins.map((r) => (r === MPI.PROC_NULL ? null : [r, -1] as [number, number]));
  const gsend = new Int32Array(K).map((_, k) => value(rank, -1, k));
  const asend = new Int32Array(outs.length * K).map((_, x) => value(rank, Math.floor(x / K), x % K));
  const fresh = (): Int32Array => new Int32Array((ins.length + 1) * K).fill(SENTINEL);
  const grecv = fresh();
  comm.Neighbor_allgather(gsend, grecv);
  checkBlocks(`${label} Neighbor_allgather`, grecv, expectAllgather);
  const arecv = fresh();
  comm.Neighbor_alltoall(asend, arecv);
  checkBlocks(`${label} Neighbor_alltoall`, arecv, expectAlltoall);
  const ig = fresh();
  const ia = fresh();
  const reqs = [comm.Ineighbor_allgather(gsend, ig), comm.Ineighbor_alltoall(asend, ia)];
  MPI.Request.Waitall(reqs);
  checkBlocks(`${label} Ineighbor_allgather`, ig, expectAllgather);
  checkBlocks(`${label} Ineighbor_alltoall`, ia, expectAlltoall);
  // v-variants: blocks in reverse order with a gap of one element between them.
  const nIn = ins.length;
  const nOut = outs.length;
  const rdispls = ins.map((_, i) => (nIn - 1 - i) * (K + 1));
  const rcounts = ins.map(() => K);
  const vrecv = (): Int32Array => new Int32Array(nIn * (K + 1)).fill(SENTINEL);
  const unpermute = (v: Int32Array): Int32Array => {
    const out = new Int32Array((nIn + 1) * K).fill(SENTINEL);
    for (let i = 0; i < nIn; i++) out.set(v.subarray(rdispls[i]!, rdispls[i]! + K), i * K);
    return out;
  };
  const gv = vrecv();
  comm.Neighbor_allgatherv(gsend, [gv, [rcounts, rdispls], MPI.INT]);
  checkBlocks(`${label} Neighbor_allgatherv`, unpermute(gv), expectAllgather);
  const sdispls = outs.map((_, j) => (nOut - 1 - j) * K);
  const vsend = new Int32Array(nOut * K);
  for (let j = 0; j < nOut; j++) vsend.set(asend.subarray(j * K, (j + 1) * K), sdispls[j]!);
  const av = vrecv();
  comm.Neighbor_alltoallv([vsend, [outs.map(() => K), sdispls], MPI.INT], [av, [rcounts, rdispls], MPI.INT]);
  checkBlocks(`${label} Neighbor_alltoallv`, unpermute(av), expectAlltoall);
  const iav = vrecv();
  comm.Ineighbor_alltoallv([vsend, [outs.map(() => K), sdispls], MPI.INT], [iav, [rcounts, rdispls], MPI.INT]).Wait();
  checkBlocks(`${label} Ineighbor_alltoallv`, unpermute(iav), expectAlltoall);
  // w-variant: K ints per block, as a strided vector (holes between the ints) for even block
  // numbers and plain MPI.INT for odd ones, on both sides independently, at byte displacements.
  const STRIDED = MPI.INT.Create_vector(K, 1, 2).Commit();
  const SLOT = 2 * K * 4; // bytes per block in the w buffers (room for the strided layout)
  const typeOf = (j: number) => (j % 2 === 0 ? STRIDED : MPI.INT);
  const countOf = (j: number) => (j % 2 === 0 ? 1 : K);
  const wsend = new Int32Array(nOut * 2 * K).fill(SENTINEL);
  for (let j = 0; j < nOut; j++) {
    typeOf(j).unpackTo(new Uint8Array(asend.buffer, j * K * 4, K * 4), 0, countOf(j), 0, K * 4, new Uint8Array(wsend.buffer, j * SLOT));
  }
  const sw = [wsend, [outs.map((_, j) => countOf(j)), outs.map((_, j) => j * SLOT)], outs.map((_, j) => typeOf(j))];
  const wrecvOf = (): Int32Array => new Int32Array(nIn * 2 * K).fill(SENTINEL);
  const rw = (buf: Int32Array) => [buf, [ins.map((_, i) => countOf(i + 1)), ins.map((_, i) => i * SLOT)], ins.map((_, i) => typeOf(i + 1))];
  const unW = (buf: Int32Array): Int32Array => {
    const out = new Int32Array((nIn + 1) * K).fill(SENTINEL);
    for (let i = 0; i < nIn; i++) {
      if (ins[i] === MPI.PROC_NULL) continue;
      typeOf(i + 1).packTo(new Uint8Array(buf.buffer, i * SLOT), countOf(i + 1), 0, K * 4, new Uint8Array(out.buffer, i * K * 4, K * 4), 0);
    }
    return out;
  };
  const w1 = wrecvOf();
  comm.Neighbor_alltoallw(sw, rw(w1));
  checkBlocks(`${label} Neighbor_alltoallw`, unW(w1), expectAlltoall);
  for (let i = 0; i < nIn; i++) {
    if ((i + 1) % 2 === 0) t.equal(w1[i * 2 * K + 1], SENTINEL, `${label} Neighbor_alltoallw: hole of block ${i} untouched`);
  }
  const w2 = wrecvOf();
  comm.Ineighbor_alltoallw(sw, rw(w2)).Wait();
  checkBlocks(`${label} Ineighbor_alltoallw`, unW(w2), expectAlltoall);
  STRIDED.Free();
  // Object forms: values of different sizes per neighbour.
  const objs = comm.neighbor_allgather({ from: rank, pad: 'x'.repeat(rank * 50) });
  t.equal(JSON.stringify(objs.map((o) => (o === null ? null : (o as { from: number }).from))),
    JSON.stringify(ins.map((r) => (r === MPI.PROC_NULL ? null : r))), `${label} neighbor_allgather`);
  const got = comm.neighbor_alltoall(outs.map((_, j) => ({ from: rank, j, pad: 'y'.repeat(j * 30) })));
  t.equal(JSON.stringify(got.map((o) => (o === null ? null : [(o as { from: number }).from, (o as { j: number }).j]))),
    JSON.stringify(expectAlltoall), `${label} neighbor_alltoall`);
}

// Cart, 1D and 2D, periodic and not: neighbours are (source, dest) of Shift(d, 1) per dimension.
for (const ndims of [1, 2]) {
  for (const periodic of [false, true]) {
    const label = `cart ${ndims}D ${periodic ? 'periodic' : 'non-periodic'}`;
    const cart = world.Create_cart(MPI.Compute_dims(size, ndims), periodic);
    const nbrs: number[] = [];
    for (let d = 0; d < ndims; d++) nbrs.push(...cart.Shift(d, 1));
    // Block 2d comes from the source, which sent its block 2d + 1 (towards its destination), and back.
    const expected = nbrs.map((r, i) => (r === MPI.PROC_NULL ? null : [r, i ^ 1] as [number, number]));
    run(label, cart, nbrs, nbrs, expected);
    cart.Free();
  }
}

// Graph: a ring with an extra edge from every node to node 0 (so node 0 has repeated neighbours).
{
  const index: number[] = [];
  const edges: number[] = [];
  const nbrsOf = (r: number): number[] => {
    const list = [(r + 1) % size, (r - 1 + size) % size];
    if (r !== 0) list.push(0);
    return list;
  };
  // Node 0 is joined to every other node (the edge back), so symmetric: add those edges to node 0.
  const adjacency: number[][] = [];
  for (let r = 0; r < size; r++) adjacency.push(nbrsOf(r));
  for (let r = 1; r < size; r++) adjacency[0]!.push(r);
  for (let r = 0; r < size; r++) { edges.push(...adjacency[r]!); index.push(edges.length); }
  const graph = world.Create_graph(index, edges);
  t.equal(graph.Get_topology(), MPI.GRAPH, 'graph: Get_topology');
  t.equal(JSON.stringify(graph.Get_dims()), JSON.stringify([size, edges.length]), 'graph: Get_dims');
  for (let r = 0; r < size; r++) {
    t.equal(JSON.stringify(graph.Get_neighbors(r)), JSON.stringify(adjacency[r]), `graph: Get_neighbors(${r})`);
    t.equal(graph.Get_neighbors_count(r), adjacency[r]!.length, `graph: Get_neighbors_count(${r})`);
  }
  const [ix, ed] = graph.Get_topo();
  t.equal(JSON.stringify([ix, ed]), JSON.stringify([index, edges]), 'graph: Get_topo');
  // Alltoall: block i comes from neighbour n = mine[i], which sent us its block at the position
  // of our rank among its neighbours, matching repeated edges in order.
  const mine = adjacency[rank]!;
  const seen = new Map<number, number>();
  const expected = mine.map((n) => {
    const nth = seen.get(n) ?? 0;
    seen.set(n, nth + 1);
    let count = -1;
    const j = adjacency[n]!.findIndex((x) => x === rank && ++count === nth);
    return [n, j] as [number, number];
  });
  run('graph', graph, mine, mine, expected);
  graph.Free();
}

// Dist graph: each process receives from rank-1 and rank-2 and sends to rank+1 and rank+2 (mod size).
{
  const sources = [(rank - 1 + size) % size, (rank - 2 + 2 * size) % size];
  const destinations = [(rank + 1) % size, (rank + 2) % size];
  const dg = world.Create_dist_graph_adjacent(sources, destinations, null, null, MPI.INFO_NULL, false);
  t.equal(dg.Get_topology(), MPI.DIST_GRAPH, 'dist graph: Get_topology');
  t.equal(JSON.stringify(dg.Get_dist_neighbors_count()), JSON.stringify([2, 2, false]), 'dist graph: counts');
  t.equal(JSON.stringify(dg.Get_dist_neighbors()), JSON.stringify([sources, destinations, null]), 'dist graph: neighbours');
  // Source s sent to us as its destination index j where destinations(s)[j] === rank; with
  // size 1 or 2 several of them coincide, and messages then match in order.
  const destsOf = (s: number): number[] => [(s + 1) % size, (s + 2) % size];
  const used = new Map<number, number>();
  const expected = sources.map((s) => {
    const nth = used.get(s) ?? 0;
    used.set(s, nth + 1);
    let count = -1;
    const j = destsOf(s).findIndex((x) => x === rank && ++count === nth);
    return [s, j] as [number, number];
  });
  run('dist graph', dg, sources, destinations, expected);
  const weighted = world.Create_dist_graph_adjacent([rank], [rank], [5], [6]);
  t.equal(JSON.stringify(weighted.Get_dist_neighbors()), JSON.stringify([[rank], [rank], [[5], [6]]]), 'dist graph: weights');
  weighted.Free();
  dg.Free();
}

// General dist graph: rank 0 names the ring edges r -> r+1 of every process; each other rank p
// names p -> p+2. Neighbours follow the edge order (process by process, then as listed).
{
  const edgeList: Array<[number, number]> = [];
  for (let r = 0; r < size; r++) edgeList.push([r, (r + 1) % size]);
  for (let p = 1; p < size; p++) edgeList.push([p, (p + 2) % size]);
  const insOf = (r: number): number[] => edgeList.filter(([, b]) => b === r).map(([a]) => a);
  const outsOf = (r: number): number[] => edgeList.filter(([a]) => a === r).map(([, b]) => b);
  const dg = rank === 0
    ? world.Create_dist_graph(Array.from({ length: size }, (_, r) => r), new Array<number>(size).fill(1),
      Array.from({ length: size }, (_, r) => (r + 1) % size))
    : world.Create_dist_graph([rank], [1], [(rank + 2) % size], null, MPI.INFO_NULL);
  const ins = insOf(rank);
  const outs = outsOf(rank);
  t.equal(JSON.stringify(dg.Get_dist_neighbors()), JSON.stringify([ins, outs, null]), 'general dist graph: neighbours');
  const used = new Map<number, number>();
  const expected = ins.map((s) => {
    const nth = used.get(s) ?? 0;
    used.set(s, nth + 1);
    let count = -1;
    const j = outsOf(s).findIndex((x) => x === rank && ++count === nth);
    return [s, j] as [number, number];
  });
  run('general dist graph', dg, ins, outs, expected);
  dg.Free();
}

// Wrong buffers raise their error, and the communicator stays usable.
{
  const cart = world.Create_cart([size], true);
  cart.Set_errhandler(MPI.ERRORS_RETURN);
  t.throws(() => cart.Neighbor_alltoallw(new Int32Array(1) as never, new Int32Array(2) as never), MPI.ERR_BUFFER,
    /expected \[buf, \[counts, displs\], datatypes\]/, 'Neighbor_alltoallw without the w form');
  t.throws(() => cart.Neighbor_alltoallw([new Int32Array(2), [[1, 1], [0, 4]], [MPI.INT, MPI.INT]],
    [new Int32Array(2), [[1, 1], [0, 8]], [MPI.INT, MPI.INT]]), MPI.ERR_BUFFER, /does not fit 8 bytes/,
    'Neighbor_alltoallw with a block past the end');
  t.throws(() => cart.Neighbor_allgather(new Int32Array(2), new Int32Array(3)), MPI.ERR_BUFFER,
    /holds less than 2 blocks of 8 bytes/, 'a recvbuf too small');
  cart.Free();
}

MPI.Finalize();
t.finish(rank);
