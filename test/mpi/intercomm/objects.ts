/**
 * The object forms of the collectives on intercommunicators (bcast, gather, scatter, allgather,
 * alltoall, reduce, allreduce), as mpi4py's: every root of both groups with MPI.ROOT and
 * MPI.PROC_NULL, values that say who made them (nested objects, strings of odd lengths, Maps,
 * typed arrays), lists the size of the remote group when the groups differ in size, a
 * non-commutative reduction function folded in rank order; then the errors. With the argument
 * `port` the intercommunicator comes from Accept/Connect (util/halves.ts), as between two jobs.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';
import { intercommHow, intercommOfHalves } from '../util/halves.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
if (size < 2) {
  if (rank === 0) process.stdout.write('intercomm objects: needs at least 2 processes\n');
} else {
  const splitArg = process.argv.slice(2).find((a) => /^\d+$/.test(a));
  const split = Number(splitArg ?? Math.floor(size / 2));
  const inA = rank < split;
  const { local, inter } = intercommOfHalves(split, intercommHow(process.argv.slice(2)), 6);
  inter.Set_errhandler(MPI.ERRORS_RETURN);
  const me = inter.rank;
  const nLocal = inter.size;
  const nRemote = inter.Get_remote_size();
  const g = inA ? 'A' : 'B';
  const other = inA ? 'B' : 'A';
  /** A value that says who made it and for whom, of a size that differs by rank. */
  const value = (group: string, r: number, tag: string) =>
    ({ group, r, tag, text: `${group}${r}`.repeat(r * 37 + 1), nums: Float64Array.of(r, -r, r / 3), map: new Map([[r, tag]]) });
  const isValue = (v: unknown, group: string, r: number, tag: string): boolean => {
    const x = v as ReturnType<typeof value> | null;
    return x !== null && typeof x === 'object' && x.group === group && x.r === r && x.tag === tag &&
      x.text === `${group}${r}`.repeat(r * 37 + 1) && x.nums instanceof Float64Array && x.nums[2] === r / 3 &&
      x.map instanceof Map && x.map.get(r) === tag;
  };
  /** The root argument for a call rooted at rank `root` of group `rootGroup`. */
  const rootArg = (rootGroup: string, root: number) => (g === rootGroup ? (me === root ? MPI.ROOT : MPI.PROC_NULL) : root);

  for (const rootGroup of ['A', 'B']) {
    const rootSize = rootGroup === g ? nLocal : nRemote;
    for (let root = 0; root < rootSize; root++) {
      const arg = rootArg(rootGroup, root);
      const label = `root ${rootGroup}${root}`;
      const atRoot = arg === MPI.ROOT;

      const b = inter.bcast(atRoot ? value(g, me, 'bcast') : null, arg);
      if (g === rootGroup) t.equal(b, null, `${label}: bcast gives null in the root's group`);
      else t.check(isValue(b, rootGroup, root, 'bcast'), `${label}: bcast delivers the root's value`);

      const gathered = inter.gather(value(g, me, 'gather'), arg);
      if (atRoot) {
        t.equal(gathered?.length, nRemote, `${label}: gather gives one value per remote rank`);
        gathered?.forEach((v, r) => t.check(isValue(v, other, r, 'gather'), `${label}: gather element ${r}`));
      } else t.equal(gathered, null, `${label}: gather gives null off the root`);

      const s = inter.scatter(atRoot ? Array.from({ length: nRemote }, (_, r) => value(g, r + 500, 'scatter')) : null, arg);
      if (g === rootGroup) t.equal(s, null, `${label}: scatter gives null in the root's group`);
      else t.check(isValue(s, rootGroup, me + 500, 'scatter'), `${label}: scatter delivers element ${me}`);

      // A reduction that is not commutative: the remote group's values joined in rank order.
      const red = inter.reduce(`${g}${me};`, (x: string, y: string) => x + y, arg);
      const want = Array.from({ length: nRemote }, (_, r) => `${other}${r};`).join('');
      if (atRoot) t.equal(red, want, `${label}: reduce folds the remote group in rank order`);
      else t.equal(red, null, `${label}: reduce gives null off the root`);
    }
  }

  const all = inter.allgather(value(g, me, 'allgather'));
  t.equal(all.length, nRemote, 'allgather gives one value per remote rank');
  all.forEach((v, r) => t.check(isValue(v, other, r, 'allgather'), `allgather element ${r}`));

  const sent = Array.from({ length: nRemote }, (_, r) => ({ from: `${g}${me}`, to: `${other}${r}`, pad: 'p'.repeat(r + me) }));
  const got = inter.alltoall(sent);
  t.equal(got.length, nRemote, 'alltoall gives one value per remote rank');
  got.forEach((v, r) => t.check(v.from === `${other}${r}` && v.to === `${g}${me}` && v.pad.length === r + me,
    `alltoall element ${r}: ${JSON.stringify(v)}`));

  const sum = inter.allreduce(me + 1, MPI.SUM);
  t.equal(sum, (nRemote * (nRemote + 1)) / 2, 'allreduce sums the remote group');
  const joined = inter.allreduce(`${g}${me}`, (x: string, y: string) => `${x},${y}`);
  t.equal(joined, Array.from({ length: nRemote }, (_, r) => `${other}${r}`).join(','), 'allreduce folds in rank order');

  // Errors: a root outside the remote group, a list of the wrong length, scan; the
  // intercommunicator still works after them.
  t.throws(() => inter.gather(1, nRemote), MPI.ERR_ROOT, /gather: root \d+ is neither MPI\.ROOT, MPI\.PROC_NULL nor a rank of the remote group of size/,
    'gather to a root beyond the remote group');
  t.throws(() => inter.alltoall(new Array(nRemote + 1).fill(0)), MPI.ERR_ARG,
    new RegExp(`alltoall: objs must be an array of ${nRemote} values \\(one per rank of the remote group\\)`), 'alltoall list of the wrong length');
  t.throws(() => inter.exscan(1), MPI.ERR_COMM, /exscan: is not defined on an intercommunicator/, 'exscan');
  // Raised at the root before anything is sent, so no other rank takes part.
  if (inA && me === 0 && nRemote !== 1) {
    t.throws(() => inter.scatter([1], MPI.ROOT), MPI.ERR_ARG, /scatter: objs must be an array of \d+ values \(one per rank of the remote group\) at the root/,
      'scatter list of the wrong length at the root');
  }
  const after = inter.allgather(me);
  t.equal(after.join(','), Array.from({ length: nRemote }, (_, r) => r).join(','), 'the intercommunicator works after the errors');
  inter.Free();
  local.Free();
}

MPI.Finalize();
t.finish(rank);
