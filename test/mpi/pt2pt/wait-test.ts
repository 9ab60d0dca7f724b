/**
 * mpi4py's lower-case completion calls: req.wait() returns what the request yields (the
 * received value of comm.irecv, the Status of a buffer operation), req.test() gives
 * [false, undefined] until the operation completes and then [true, that value],
 * MPI.Request.waitall / testall do the same for a list in order. Each "not yet" is made
 * certain: the sender waits for a go message that the receiver sends only after testing.
 */
import { MPI, type Status } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;
const GO = 99;

/** Tells `left` (the rank sending to us) that it may send now, then waits for our own go from `right`. */
function handshake(tag: number): void {
  comm.send(tag, left, GO);
  t.equal(comm.recv<number>(right, GO), tag, `go message for tag ${tag}`);
}

// irecv: test() is [false, undefined] before the message exists, then [true, value]; the
// status passed in is filled.
{
  const req = comm.irecv<{ from: number; list: number[] }>(left, 1);
  const first = req.test();
  t.equal(first[0], false, 'irecv.test() before the send');
  t.equal(first[1], undefined, 'irecv.test() before the send: no value');
  handshake(1);
  comm.send({ from: rank, list: [rank, rank * 2, rank * 3] }, right, 1);
  const status = new MPI.Status();
  let result = req.test(status);
  while (!result[0]) result = req.test(status);
  t.equal(result[1].from, left, 'irecv.test(): the value');
  t.equal(result[1].list[2], left * 3, 'irecv.test(): the value, deep');
  t.equal(status.Get_source(), left, 'irecv.test(status): source');
  t.equal(status.Get_tag(), 1, 'irecv.test(status): tag');
  t.equal(req.active, false, 'the request is inactive after test() gave its value');
}

// irecv: wait() returns the value (a big one: rendezvous), and fills the status.
{
  const req = comm.irecv<Uint8Array>(left, 2);
  comm.send(new Uint8Array(300_000).fill(rank + 1), right, 2);
  const status = new MPI.Status();
  const bytes = req.wait(status);
  t.equal(bytes.length, 300_000, 'irecv.wait(): length');
  t.equal(bytes[299_999], left + 1, 'irecv.wait(): last byte');
  t.equal(status.Get_source(), left, 'irecv.wait(status): source');
}

// Buffer requests yield their Status: wait() returns the status it filled (or a new one).
{
  const box = new Float64Array(3).fill(-1);
  const req = comm.Irecv(box, left, 3);
  const [done, none] = req.test();
  t.equal(done, false, 'Irecv.test() before the send');
  t.equal(none, undefined, 'Irecv.test() before the send: no status');
  handshake(3);
  const send = comm.Isend(Float64Array.of(rank, rank + 0.5), right, 3);
  const mine = new MPI.Status();
  const st: Status = req.wait(mine);
  t.check(st === mine, 'Irecv.wait(status) returns the status it filled');
  t.equal(st.Get_count(MPI.DOUBLE), 2, 'Irecv.wait(): count');
  t.equal(box[1], left + 0.5, 'Irecv.wait(): data');
  t.equal(box[2], -1, 'Irecv.wait(): nothing written past the message');
  const sent = send.wait();
  t.check(sent instanceof MPI.Status, 'Isend.wait() returns a Status');
}

// Sends of objects and non-blocking collectives yield a Status too; test() on them.
{
  const s = comm.isend('x'.repeat(rank + 1), right, 4);
  const text = comm.recv<string>(left, 4);
  t.equal(text, 'x'.repeat(left + 1), 'isend / recv<string>');
  let r = s.test();
  while (!r[0]) r = s.test();
  t.check(r[1] instanceof MPI.Status, 'isend.test(): [true, Status]');
  const sum = Int32Array.of(rank + 1);
  const coll = comm.Iallreduce(MPI.IN_PLACE, sum, MPI.SUM);
  t.check(coll.wait() instanceof MPI.Status, 'Iallreduce.wait() returns a Status');
  t.equal(sum[0], (size * (size + 1)) / 2, 'Iallreduce result after wait()');
}

// waitall: each request's value in order, mixed kinds; testall: false until all are done.
{
  const box = new Int32Array(2);
  const requests = [comm.irecv<number>(left, 5), comm.Irecv(box, left, 6), comm.irecv<string[]>(left, 7)] as const;
  const [notYet, nothing] = MPI.Request.testall(requests);
  t.equal(notYet, false, 'testall before the sends');
  t.equal(nothing, undefined, 'testall before the sends: no values');
  handshake(5);
  comm.send(rank * 11, right, 5);
  comm.Send(Int32Array.of(rank, -rank - 1), right, 6);
  comm.send(['a', String(rank)], right, 7);
  const statuses = [new MPI.Status(), new MPI.Status(), new MPI.Status()];
  const [n, st, words] = MPI.Request.waitall(requests, statuses);
  t.equal(n, left * 11, 'waitall: irecv<number> value');
  t.check(st === statuses[1], 'waitall: a buffer request yields its entry of statuses');
  t.equal(st.Get_tag(), 6, 'waitall: Irecv status');
  t.equal(box[1], -left - 1, 'waitall: Irecv data');
  t.equal(words[1], String(left), 'waitall: irecv<string[]> value');
  t.equal(statuses[2]!.Get_tag(), 7, 'waitall: statuses of object receives are filled too');
}
{
  const requests = [comm.irecv<bigint>(left, 8), comm.irecv<bigint>(MPI.PROC_NULL, 9)];
  comm.send(BigInt(rank) * 10n ** 20n, right, 8);
  let r = MPI.Request.testall(requests);
  while (!r[0]) r = MPI.Request.testall(requests);
  t.equal(r[1][0], BigInt(left) * 10n ** 20n, 'testall: the value once all are done');
  t.equal(r[1][1], null, 'testall: an irecv from MPI.PROC_NULL yields null');
}

// A truncated receive: waitall completes the others and raises MPI.ERR_TRUNCATE.
{
  comm.Set_errhandler(MPI.ERRORS_RETURN);
  const small = new Int32Array(1);
  const value = comm.irecv<number>(left, 10);
  const truncated = comm.Irecv(small, left, 11);
  comm.send(rank, right, 10);
  comm.Send(Int32Array.of(1, 2, 3), right, 11);
  t.throws(() => MPI.Request.waitall([value, truncated]), MPI.ERR_TRUNCATE, /truncated/, 'waitall with a truncated receive');
  t.equal(value.active, false, 'waitall completed the other request');
  t.equal(value.result(), left, 'its value is there');
  comm.Set_errhandler(MPI.ERRORS_ARE_FATAL);
}

MPI.Finalize();
t.finish(rank);
