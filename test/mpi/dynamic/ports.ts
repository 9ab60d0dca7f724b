/**
 * Ports (MPI.Open_port, Accept, Connect, Close_port) and Disconnect, between the lower and the
 * upper half of COMM_WORLD (group sizes 1+1, 1+2, 2+2), three rounds: each round's roots are
 * other ranks and a new intercommunicator reaches the other group as another job's processes.
 * On each: sizes and ranks; messages both ways from every rank to every remote rank (1, 1000
 * and 300,000 elements: eager and rendezvous) received by ANY_SOURCE and ANY_TAG with their
 * statuses checked; Dup; Merge in both orders with a broadcast from every root and a large
 * Allreduce; Disconnect. Round 1 finds its port through the name service (Publish_name,
 * Lookup_name, Unpublish_name). Then bad input under MPI.ERRORS_RETURN, after which the job
 * still works.
 */
import { MPI, type Intercomm } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
if (size < 2) {
  if (rank === 0) process.stdout.write('dynamic ports: needs at least 2 processes\n');
} else {
  const split = Math.floor(size / 2);
  const inA = rank < split;
  const g = inA ? 0 : 1;
  const local = world.Split(g, rank);
  const nLocal = local.size;
  const nRemote = inA ? size - split : split;
  const val = (group: number, r: number, i: number, round: number) => (group * 7 + r * 131 + i * 3 + round * 1009) % 2147483647;

  // Names of this run (the name service is shared by every job of a launcher's run).
  const jobTag = world.bcast(process.pid, 0) as number;
  for (let round = 0; round < 3; round++) {
    // Each round another rank of each group is the root.
    const rootA = round % split;
    const rootB = round % (size - split);
    const root = inA ? rootA : rootB;
    let port = '';
    const tag = 40 + round;
    // Round 1 finds the port through the name service, the others are told it by a message.
    const service = `tsmpi-test-ports-${jobTag}-${round}`;
    if (inA && local.rank === rootA) {
      port = MPI.Open_port();
      t.check(port.length > 0 && !/\s/.test(port), `port name ${JSON.stringify(port)} has no spaces`);
      if (round === 1) {
        MPI.Publish_name(service, port);
        t.throws(() => MPI.Publish_name(service, port), MPI.ERR_SERVICE, /cannot publish/, 'Publish_name of a name taken');
        world.send(null, split + rootB, tag);
      } else world.send(port, split + rootB, tag);
    } else if (!inA && local.rank === rootB) {
      const told = world.recv(rootA, tag) as string | null;
      port = round === 1 ? MPI.Lookup_name(service) : told!;
    }
    const inter: Intercomm = inA ? local.Accept(port, MPI.INFO_NULL, root) : local.Connect(port, MPI.INFO_NULL, root);
    if (inA && local.rank === rootA) {
      if (round === 1) MPI.Unpublish_name(service, port);
      MPI.Close_port(port);
    }
    inter.Set_errhandler(MPI.ERRORS_RETURN);
    t.equal(inter.Is_inter(), true, `round ${round}: Is_inter`);
    t.equal(inter.size, nLocal, `round ${round}: size is the local group's`);
    t.equal(inter.rank, local.rank, `round ${round}: rank in the local group`);
    t.equal(inter.Get_remote_size(), nRemote, `round ${round}: Get_remote_size`);

    for (const n of [1, 1000, 300_000]) {
      const reqs = [];
      for (let r = 0; r < nRemote; r++) {
        const out = Int32Array.from({ length: n }, (_, i) => val(g, inter.rank, i, round));
        reqs.push(inter.Isend(out, r, 1000 + inter.rank));
      }
      const seen = new Set<number>();
      for (let k = 0; k < nRemote; k++) {
        const got = new Int32Array(n);
        const status = new MPI.Status();
        inter.Recv(got, MPI.ANY_SOURCE, MPI.ANY_TAG, status);
        const from = status.Get_source();
        t.equal(status.Get_tag(), 1000 + from, `round ${round} n=${n}: tag of the message from remote rank ${from}`);
        t.equal(status.Get_count(MPI.INT), n, `round ${round} n=${n}: count from remote rank ${from}`);
        t.check(!seen.has(from) && from >= 0 && from < nRemote, `round ${round} n=${n}: source ${from} once, in range`);
        seen.add(from);
        for (let i = 0; i < n; i++) {
          if (got[i] !== val(1 - g, from, i, round)) {
            t.check(false, `round ${round} n=${n}: element ${i} from remote rank ${from} is ${got[i]}`);
            break;
          }
        }
      }
      MPI.Request.Waitall(reqs);
      // The next size's messages would match this size's ANY_SOURCE, ANY_TAG receives.
      inter.Barrier();
    }

    const dup = inter.Dup();
    const mine = Int32Array.of(g * 100 + dup.rank);
    const theirs = new Int32Array(1);
    const partner = dup.rank % nRemote;
    // Rank r of each group sends to remote rank r mod nRemote; every rank receives from each
    // remote rank whose partner it is.
    const sends = [dup.Isend(mine, partner, 3)];
    for (let r = 0; r < nRemote; r++) {
      if (r % nLocal !== dup.rank) continue;
      dup.Recv(theirs, r, 3);
      t.equal(theirs[0], (1 - g) * 100 + r, `round ${round}: message on the Dup from remote rank ${r}`);
    }
    MPI.Request.Waitall(sends);
    dup.Disconnect();
    // Idup agrees its context id over both jobs in the background.
    const [idup, idupReq] = inter.Idup();
    idupReq.Wait();
    t.equal(idup.Get_remote_size(), nRemote, `round ${round}: Idup's remote size`);
    const remoteSum = new Int32Array(1);
    idup.Allreduce(Int32Array.of(idup.rank + 1), remoteSum, MPI.SUM);
    t.equal(remoteSum[0], (nRemote * (nRemote + 1)) / 2, `round ${round}: Allreduce on the Idup sums the other group's values`);
    idup.Disconnect();

    for (const high of [false, true]) {
      // Group A passes `high`, B its negation: A first unless high.
      const merged = inter.Merge(inA ? high : !high);
      const aFirst = !high;
      const expectRank = (inA === aFirst) ? inter.rank : nRemote + inter.rank;
      t.equal(merged.size, size, `round ${round} Merge(${high}): size`);
      t.equal(merged.rank, expectRank, `round ${round} Merge(${high}): rank`);
      for (let r = 0; r < size; r++) {
        const b = Int32Array.of(merged.rank === r ? 5000 + r + round : -1, 7);
        merged.Bcast(b, r);
        t.equal(b[0], 5000 + r + round, `round ${round} Merge(${high}): Bcast from ${r}`);
      }
      const big = Float64Array.from({ length: 70_000 }, (_, i) => merged.rank + i);
      const sum = new Float64Array(big.length);
      merged.Allreduce(big, sum, MPI.SUM);
      const ranksSum = (size * (size - 1)) / 2;
      t.check(sum[0] === ranksSum && sum[69_999] === ranksSum + size * 69_999, `round ${round} Merge(${high}): Allreduce`);
      if (!high) {
        // A window over both jobs: each rank puts its rank into its slot at every target.
        const win = MPI.Win.Allocate(8 * size, 8, MPI.INFO_NULL, merged);
        win.Fence();
        for (let target = 0; target < size; target++) win.Put(Float64Array.of(merged.rank + 0.5), target, merged.rank);
        win.Fence();
        const memory = win.tomemory() as Uint8Array;
        const mem = new Float64Array(memory.buffer, memory.byteOffset, size);
        for (let r = 0; r < size; r++) t.equal(mem[r], r + 0.5, `round ${round}: window slot ${r} after Put from both jobs`);
        win.Fence();
        win.Free();
      }
      merged.Disconnect();
    }
    inter.Disconnect();
    t.throws(() => inter.Send(Int32Array.of(1), 0, 0), MPI.ERR_COMM, /freed/, `round ${round}: Send after Disconnect`);
  }

  // Bad input, under ERRORS_RETURN on COMM_SELF (ports are made on a one-process communicator).
  const self = MPI.COMM_SELF;
  self.Set_errhandler(MPI.ERRORS_RETURN);
  t.throws(() => self.Connect('tsmpi-port/1/nosecret/127.0.0.1'), MPI.ERR_PORT, /no one listens|cannot connect/, 'Connect to a closed port');
  t.throws(() => self.Connect('not a port'), MPI.ERR_PORT, /not a port name/, 'Connect to a name that is no port');
  t.throws(() => self.Accept('tsmpi-port/9/abc/127.0.0.1'), MPI.ERR_PORT, /not a port this process opened/, 'Accept on a port of nobody');
  t.throws(() => MPI.Close_port('tsmpi-port/9/abc/127.0.0.1'), MPI.ERR_PORT, /not a port this process has open/, 'Close_port of a port not open');
  t.throws(() => MPI.Close_port(42 as unknown as string), MPI.ERR_PORT, /must be a non-empty string/, 'Close_port(42)');
  local.Set_errhandler(MPI.ERRORS_RETURN);
  t.throws(() => local.Accept('x', MPI.INFO_NULL, nLocal), MPI.ERR_ROOT, /root .* out of range/, 'Accept with root out of range');
  t.throws(() => MPI.Lookup_name(`tsmpi-test-nothing-${rank}`), MPI.ERR_NAME, /no port is published|cannot look up/, 'Lookup_name of a name nobody published');
  t.throws(() => MPI.Unpublish_name(`tsmpi-test-nothing-${rank}`, 'x'), MPI.ERR_SERVICE, /cannot unpublish/, 'Unpublish_name of a name nobody published');
  const p = MPI.Open_port();
  MPI.Close_port(p);
  t.throws(() => self.Connect(p), MPI.ERR_PORT, /no one listens|cannot connect/, 'Connect to a port after Close_port');
  // The job still works: a last exchange over COMM_WORLD.
  const total = new Int32Array(1);
  world.Allreduce(Int32Array.of(rank + 1), total, MPI.SUM);
  t.equal(total[0], (size * (size + 1)) / 2, 'Allreduce after the errors');
  local.Free();
}

MPI.Finalize();
t.finish(rank);
