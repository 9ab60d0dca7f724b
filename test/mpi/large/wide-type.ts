/**
 * A derived type whose extent passes 4 GiB, in messages between two ranks (issue 17): R is two
 * blocks of B ints, the second starting 8 bytes before the 4 GiB mark (it straddles it),
 * resized to an extent of 4 GiB + 4B + 16, and two of them are sent, so the second instance's
 * blocks lie past 4 GiB and past 8 GiB. The buffers are ArrayBuffers of 8 GiB + a little,
 * backed lazily: only the pages the blocks touch take memory. The message (1 MiB) goes by
 * rendezvous, so single copy lists iovecs past 4 GiB and the pipelined paths pack and unpack
 * there. Rank 0 sends [wide, 2, R] to [wide, 2, R], then to a contiguous receive (the packed
 * order), and gets it back into [wide, 2, R]. Each word's value is that of its own index in
 * the sender's memory; the words around every block must stay zero.
 */
import { MTest } from '../util/mtest.js';
import { MPI, findWordError, wordAt } from './kit.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const rank = comm.rank;
const G4 = 2 ** 32;
const B = 65536;
const SEED = 0x7e57;
/** Byte displacements of the two blocks of one instance, and the instance's extent. */
const BLOCKS = [0, G4 - 8];
const EXTENT = G4 + 4 * B + 16;
const COUNT = 2;
const R = MPI.INT.Create_hindexed([B, B], BLOCKS).Create_resized(0, EXTENT).Commit();
/** First word of each block of the COUNT instances, in type-map (packed) order. */
const starts = [0, 1].flatMap((i) => BLOCKS.map((d) => (i * EXTENT + d) / 4));
const span = (COUNT - 1) * EXTENT + BLOCKS[1]! + 4 * B;

function wideMemory(): { memory: ArrayBuffer; words: Int32Array } {
  const memory = new ArrayBuffer(span + 64);
  return { memory, words: new Int32Array(memory) };
}

/** Checks every block of `words` holds the sender's pattern and that the words around each are zero. */
function checkBlocks(words: Int32Array, what: string): void {
  for (const s of starts) {
    t.equal(findWordError(words, s, s + B, SEED), -1, `${what}: block at byte ${s * 4}: first wrong word`);
    if (s > 0) t.equal(words[s - 1], 0, `${what}: word before the block at byte ${s * 4}`);
    t.equal(words[s + B], 0, `${what}: word after the block at byte ${s * 4}`);
  }
}

t.equal(R.Get_extent()[1], EXTENT, 'Get_extent');
t.equal(R.Get_size(), 8 * B, 'Get_size');
t.equal(R.Create_contiguous(COUNT).Get_true_extent()[1], span, 'true extent of two instances');
if (comm.size !== 2) t.check(false, `large/wide-type runs on 2 ranks, not ${comm.size}`);
else {
  const status = new MPI.Status();
  const { memory, words } = wideMemory();
  if (rank === 0) {
    for (const s of starts) for (let k = s; k < s + B; k++) words[k] = wordAt(k, SEED);
    comm.Send([memory, COUNT, R], 1, 1);
    comm.Send([memory, COUNT, R], 1, 2);
    for (const s of starts) words.fill(0, s, s + B);
    comm.Recv([memory, COUNT, R], 1, 3, status);
    checkBlocks(words, 'back into [wide, 2, R]');
  } else {
    comm.Recv([memory, COUNT, R], 0, 1, status);
    checkBlocks(words, 'into [wide, 2, R]');
    t.equal(status.Get_count(R), COUNT, 'Get_count(R)');
    t.equal(status.Get_elements(R), COUNT * 2 * B, 'Get_elements(R)');
    const flat = new Int32Array(COUNT * 2 * B);
    comm.Recv(flat, 0, 2, status);
    t.equal(status.Get_count(MPI.INT), flat.length, 'contiguous receive: Get_count(INT)');
    starts.forEach((s, i) => t.equal(findWordError(flat, i * B, (i + 1) * B, SEED, s - i * B), -1,
      `contiguous receive: block ${i} (from byte ${s * 4}): first wrong word`));
    comm.Send(flat, 0, 3);
  }
  t.equal(status.Get_count(MPI.BYTE), COUNT * 8 * B, 'Get_count(BYTE)');
}
R.Free();
MPI.Finalize();
t.finish(rank);
