// The other emulated SCI node of binding.test.ts (run as a child process with TSMPI_SCI_NODE=1):
// exports segment 5 with a pattern, waits on interrupt 3 until node 4 wrote word 0 and
// triggered it, then removes both and prints "peer ok".
import { Descriptor } from '../../../src/sisci/index.js';
import { removeWhenFree } from './remove-when-free.js';

const d = Descriptor.open();
const seg = d.createSegment(5, 4096);
const map = seg.map();
for (let i = 0; i < 1024; i++) map.words[i] = i * 7;
const intr = d.createInterrupt(3);
seg.setAvailable();
process.stdout.write(`peer ready ${d.nodeId()}\n`);
let triggered = false;
for (let i = 0; i < 100 && !triggered; i++) triggered = intr.wait(100);
if (!triggered) throw new Error('no interrupt from node 4 within 10 s');
if (Atomics.load(map.words, 0) !== 777) throw new Error(`word 0 is ${map.words[0]}, node 4 wrote 777`);
intr.remove();
// Node 4 disconnects after its trigger; removing is BUSY until then.
map.unmap();
await removeWhenFree(seg);
d.close();
process.stdout.write('peer ok\n');
