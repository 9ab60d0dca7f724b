// The window layer's choice of access method per target (src/osc/select.ts), from the memory
// capabilities the registered devices declare: the reach of a part (node segment, exported
// memory of a rank of our node or of another node, nothing mapped) gives Put/Get, the updates'
// path and the lock's path; TSMPI_RMA_METHOD and the lock policy change them as documented.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { DEVICES } from '../../../src/boot/devices.js';
import {
  ALL_ATOMICS, ALL_WIDTHS, MEM_CPU_ATOMICS, type MemoryCapabilities, NO_MEMORY, RMA_ATOMICS, RMA_FLUSH, RMA_GET, RMA_PUT, WIDTH_8,
} from '../../../src/mpid/memory.js';
import {
  ACCESS_AGENT, ACCESS_DIRECT, ACCESS_GATHERED, cpuAtomics, exportedReach, LOCK_AGENT, LOCK_CPU, LOCK_MUTEX, selectLock,
  selectMethod, UPDATES_AGENT, UPDATES_CPU, UPDATES_MUTEX,
} from '../../../src/osc/select.js';

const caps = (name: string): MemoryCapabilities => DEVICES.find((d) => d.name === name)!.memory!;
const shmem = caps('ch_shmem');
const sci = caps('ch_sci');
const self = caps('self');
/** A network device as ch_ucx will declare it: put, get, 64-bit atomics, flush, and no mapping. */
const network: MemoryCapabilities = { flags: RMA_PUT | RMA_GET | RMA_ATOMICS | RMA_FLUSH, atomicWidths: WIDTH_8, atomicOps: ALL_ATOMICS };

describe('per-target method selection', () => {
  it('a part in load/store memory with CPU atomics (node segment, ch_shmem, self): direct, CPU atomics', () => {
    for (const reach of [shmem, self]) {
      for (const policy of ['migrate', 'device', 'cpu'] as const) {
        assert.deepEqual(selectMethod(reach, 'auto', policy), { access: ACCESS_DIRECT, updates: UPDATES_CPU });
      }
    }
  });

  it('a part in exported memory of another node (ch_sci, no remote atomics): direct Put/Get, updates under the mutex', () => {
    assert.deepEqual(selectMethod(sci, 'auto', 'migrate'), { access: ACCESS_DIRECT, updates: UPDATES_MUTEX });
    assert.deepEqual(selectMethod(sci, 'auto', 'device'), { access: ACCESS_DIRECT, updates: UPDATES_MUTEX });
    // Policy cpu keeps the lock in cpu mode for good: ranks of other nodes send updates to the owner's agent.
    assert.deepEqual(selectMethod(sci, 'auto', 'cpu'), { access: ACCESS_DIRECT, updates: UPDATES_AGENT });
  });

  it('nothing mapped, a device without memory, or one with put/get but no mapping yet: the agent', () => {
    for (const reach of [null, NO_MEMORY, network]) {
      assert.deepEqual(selectMethod(reach, 'auto', 'migrate'), { access: ACCESS_AGENT, updates: UPDATES_AGENT });
    }
  });

  it('TSMPI_RMA_METHOD=emulated and gather override the capabilities', () => {
    for (const reach of [shmem, sci, null]) {
      assert.deepEqual(selectMethod(reach, 'emulated', 'migrate'), { access: ACCESS_AGENT, updates: UPDATES_AGENT });
      assert.deepEqual(selectMethod(reach, 'gather', 'migrate'), { access: ACCESS_GATHERED, updates: UPDATES_AGENT });
    }
  });

  it('exported memory of a rank whose device shares memory with us is reached as that device offers (CPU atomics)', () => {
    // sci-nodes=2: a rank of our node (ch_shmem) and one of the other node (ch_sci), both parts exported by ch_sci.
    assert.equal(exportedReach(shmem, sci), shmem);
    assert.equal(exportedReach(self, sci), self);
    assert.equal(exportedReach(sci, sci), sci);
    assert.equal(selectMethod(exportedReach(shmem, sci), 'auto', 'migrate').updates, UPDATES_CPU);
    assert.equal(selectMethod(exportedReach(sci, sci), 'auto', 'migrate').updates, UPDATES_MUTEX);
  });

  it('the lock: CPU compare-exchange where the area takes CPU atomics, else Lamport\'s mutex, or the agent under policy cpu', () => {
    assert.equal(selectLock(shmem, 'migrate'), LOCK_CPU);
    assert.equal(selectLock(shmem, 'cpu'), LOCK_CPU);
    assert.equal(selectLock(sci, 'migrate'), LOCK_MUTEX);
    assert.equal(selectLock(sci, 'device'), LOCK_MUTEX);
    assert.equal(selectLock(sci, 'cpu'), LOCK_AGENT);
  });

  it('CPU atomics need both the mapping and the atomics flag', () => {
    assert.ok(cpuAtomics(shmem));
    assert.ok(!cpuAtomics(sci));
    assert.ok(!cpuAtomics(network));
    assert.ok(!cpuAtomics({ flags: shmem.flags & ~MEM_CPU_ATOMICS, atomicWidths: ALL_WIDTHS, atomicOps: ALL_ATOMICS }));
    assert.ok(!cpuAtomics(null));
  });
});
