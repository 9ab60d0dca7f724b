// The SISCI emulation (native/sisci) through its C API: native/sisci/test/emu_test.c runs each
// case with real processes as emulated SCI nodes (segments across processes with
// SEGMENTID_USED, NO_SUCH_SEGMENT, ILLEGAL_NODEID, alignment and range errors, BUSY while
// connected or mapped, SCIProbeNode; injected faults: a corrupted byte that the sequence check
// reports, a late store visible only after the barrier, the counters; interrupts that coalesce
// and time out; DMA writes and reads with the completion callback and MAX_ENTRIES; the limits
// giving SCI_ERR_NOSPC). Every case runs under its own job id, and nothing of it may remain in
// /dev/shm once the job's segments are swept (as tsmpiexec does).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { sweepJobSegments } from '../../../src/common/segment-names.js';
import { ROOT } from '../../helpers.js';

const BINARY = path.join(ROOT, 'native', 'build', 'Release', 'sisci_emu_test');

describe('SISCI emulation (C API, processes as nodes)', () => {
  for (const name of ['segments', 'faults', 'interrupts', 'dma', 'limits']) {
    it(name, { timeout: 30_000 }, () => {
      const job = `sciemu${name}${process.pid}`;
      const env: NodeJS.ProcessEnv = { ...process.env, TSMPI_JOBID: job };
      delete env.TSMPI_SCI_FAULTS;
      const r = spawnSync(BINARY, [name], { env, encoding: 'utf8', timeout: 25_000 });
      const swept = sweepJobSegments(job);
      assert.equal(r.status, 0, `emu_test ${name} failed (status ${r.status}):\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^ok ${name}$`, 'm'));
      // Segments and interrupts are removed by the program; what the sweep finds is only the
      // per-node liveness words of SCIProbeNode.
      for (const s of swept) assert.match(s, /-sci-\d+-a0$/, `left behind: ${s}`);
      assert.deepEqual(fs.readdirSync('/dev/shm').filter((n) => n.startsWith(`tsmpi-${job}-`)), []);
    });
  }
});
