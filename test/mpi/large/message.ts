/**
 * A message of 2^31 + 16 bytes (issue 17: its length once travelled in a signed 32-bit word
 * and killed the receiver), both ways between two ranks over whatever device the testlist line
 * selects: rank 0 sends while rank 1 has not posted yet (the request-to-send waits unexpected:
 * Probe must report the whole length), then rank 1 sends it back synchronously into a receive
 * rank 0 posted first. Every word is checked (each word's value is its own index's, so any
 * byte put at a wrong offset shows), the bytes after the receive area stay untouched, and the
 * status counts pass 2^31 exactly. arg: the message length in bytes (default 2^31 + 16).
 */
import { MTest } from '../util/mtest.js';
import { MPI, enoughMemory, fillWords, findWordError } from './kit.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const rank = comm.rank;
const bytes = Number(process.argv[2] ?? 2 ** 31 + 16);
const SEED = 0x5eed;
const SENTINEL = 0xa5;
// Both ranks hold one buffer; the rest is headroom for the devices and the other jobs on the node.
if (comm.size !== 2) t.check(false, `large/message runs on 2 ranks, not ${comm.size}`);
else if (bytes % 4 !== 0) t.check(false, `large/message: the length ${bytes} is not a whole number of words`);
else if (enoughMemory(comm, 2 * bytes + 4 * 2 ** 30, 'large/message')) {
  // The buffer has 8 bytes after the message, which no receive may touch.
  const buf = new Uint8Array(bytes + 8);
  const words = new Int32Array(buf.buffer, 0, bytes / 4);
  const msg = buf.subarray(0, bytes);
  buf.fill(SENTINEL, bytes);
  const status = new MPI.Status();
  if (rank === 0) {
    fillWords(words, 0, words.length, SEED);
    comm.Send(msg, 1, 7);
    words.fill(0);
    const r = comm.Irecv(msg, 1, 8);
    comm.Barrier();
    r.Wait(status);
    t.equal(findWordError(words, 0, words.length, SEED), -1, 'message back from rank 1: first wrong word');
  } else {
    comm.Probe(0, 7, status);
    t.equal(status.Get_count(MPI.BYTE), bytes, 'Probe of the unexpected request-to-send: Get_count(BYTE)');
    comm.Recv(msg, 0, 7, status);
    t.equal(findWordError(words, 0, words.length, SEED), -1, 'message from rank 0: first wrong word');
    comm.Barrier();
    comm.Ssend(msg, 0, 8);
  }
  t.equal(status.Get_source(), 1 - rank, 'status source');
  t.equal(status.Get_count(MPI.BYTE), bytes, 'Get_count(BYTE)');
  t.equal(status.Get_elements(MPI.BYTE), bytes, 'Get_elements(BYTE)');
  t.equal(status.Get_count(MPI.INT), bytes / 4, 'Get_count(INT)');
  t.equal(status.Get_count(MPI.DOUBLE), bytes % 8 === 0 ? bytes / 8 : MPI.UNDEFINED, 'Get_count(DOUBLE)');
  for (let i = bytes; i < bytes + 8; i++) t.equal(buf[i], SENTINEL, `byte ${i} after the message`);
}
MPI.Finalize();
t.finish(rank);
