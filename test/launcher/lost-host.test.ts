import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';

import { bringHostsUp, NETNS_SSH, segmentsOn } from '../emulated-hosts.js';
import { TSMPIEXEC } from '../helpers.js';
import { launcherProgram, link, node, runOn, tsmpiexecOnH1, whyNoMultiHost } from './hosts-helpers.js';

/**
 * A host that drops off the network mid-job (`netns-hosts.sh cut h2`) ends the job with an
 * error naming it instead of hanging: under tsmpiexec the launcher's heartbeat with h2's agent
 * falls silent; under hydra the surviving rank's UCX endpoint to h2 fails, by TCP keepalive
 * when the connection was idle (ch_ucx's UCX defaults) or by ch_ucx's peer watch (heartbeats
 * in a ring, native/src/ucx_watch.cc) when data was in flight, and the rank's wait ends with
 * PeerLostError naming the lost rank and its host (under MPI.ERRORS_RETURN, an MPI.Exception
 * the program catches). The link is healed in a finally, whatever happened.
 */
const skip = whyNoMultiHost();
const noHydra = fs.existsSync('/usr/bin/mpiexec.hydra') ? false : 'mpiexec.hydra is not installed (apt-get install mpich)';

/** Resolves when `test` holds, checked each time `poke` is called; rejects after `ms`. */
function when(ms: number, what: string): { poke: (ok: boolean) => void; done: Promise<number> } {
  let poke: (ok: boolean) => void = () => {};
  const done = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
    poke = (ok) => {
      if (!ok) return;
      clearTimeout(timer);
      resolve(Date.now());
    };
  });
  done.catch(() => {});
  return { poke: (ok) => poke(ok), done };
}

describe('a host cut off the network mid-job', { skip }, () => {
  before(() => bringHostsUp(3));

  it('under tsmpiexec --hosts ends the job within seconds naming the host, and the host keeps no segment', { timeout: 120_000 }, async () => {
    const ready = when(60_000, 'four ranks with a segment each');
    let cutAt = 0;
    try {
      const job = tsmpiexecOnH1(['--hosts', 'h1:2,h2:2', '-n', '4', node, launcherProgram('behave'), 'segment-hang'], 90_000, {
        onStdout: (text) => ready.poke((text.match(/segment tsmpi-/g) ?? []).length === 4),
      });
      await ready.done;
      await link('cut', 'h2');
      cutAt = Date.now();
      const r = await job;
      const tookMs = Date.now() - cutAt;
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /tsmpiexec: host h2 stopped answering: no word from its agent for \d+\.\d s \(the host is down or the network to it is cut\); its rank\(s\) 2, 3 are lost/);
      assert.ok(tookMs < 10_000, `the job took ${tookMs} ms to end after the cut`);
      await link('heal', 'h2');
      assert.deepEqual(await segmentsOn('h1', r.jobId), [], 'segments left on h1');
      // h2's agent, cut off, cleans its host by itself (here it also hears its stdin close).
      let left: string[] = [];
      for (let i = 0; i < 40; i++) {
        left = await segmentsOn('h2', r.jobId);
        if (left.length === 0) break;
        await new Promise((res) => setTimeout(res, 250));
      }
      assert.deepEqual(left, [], 'segments left on h2');
    } finally {
      await link('heal', 'h2');
    }
  });

  it('an agent cut off from its launcher stops its ranks and sweeps its host by itself, as over real ssh', { timeout: 120_000 }, async () => {
    // Over real ssh a cut network never ends the agent's stdin: this wrapper hands over the
    // configuration line and then holds stdin open, so only the agent's own heartbeat can tell.
    const wrapper = path.join(os.tmpdir(), `tsmpi-ssh-no-eof-${process.pid}`);
    fs.writeFileSync(wrapper, `#!/bin/sh\nhost=$1; shift\n{ head -n 1; exec sleep 30; } | exec '${NETNS_SSH}' "$host" "$@"\n`, { mode: 0o755 });
    const ready = when(60_000, 'four ranks with a segment each');
    const pids: number[] = [];
    try {
      const job = runOn('h1', [node, TSMPIEXEC, '--launcher-exec', wrapper, '--hosts', 'h1:2,h2:2', '-n', '4',
        node, launcherProgram('behave'), 'segment-hang'], 90_000, {
        onStdout: (text) => {
          pids.splice(0, pids.length, ...[...text.matchAll(/^rank [23] pid (\d+) ready$/gm)].map((m) => Number(m[1])));
          ready.poke((text.match(/segment tsmpi-/g) ?? []).length === 4);
        },
      });
      await ready.done;
      await link('cut', 'h2');
      const r = await job;
      assert.match(r.stderr, /tsmpiexec: host h2 stopped answering/);
      let left: string[] = [];
      for (let i = 0; i < 60; i++) {
        left = await segmentsOn('h2', r.jobId);
        if (left.length === 0) break;
        await new Promise((res) => setTimeout(res, 250));
      }
      assert.deepEqual(left, [], 'segments left on h2');
      assert.equal(pids.length, 2);
      for (const pid of pids) assert.throws(() => process.kill(pid, 0), /ESRCH/, `rank pid ${pid} on h2 still alive`);
    } finally {
      await link('heal', 'h2');
      fs.rmSync(wrapper, { force: true });
    }
  });

  const described = {
    idle: 'the connection idle at the cut: the job ends with the lost peer and its host named',
    stream: 'data in flight at the cut: the job ends with the lost peer and its host named',
    return: 'under MPI.ERRORS_RETURN: the surviving rank catches an MPI.Exception naming the lost peer and its host',
  } as const;
  for (const mode of ['idle', 'stream', 'return'] as const) {
    it(`under hydra, ${described[mode]}`, {
      timeout: 120_000, skip: noHydra,
    }, async () => {
      const ready = when(60_000, 'both ranks ready');
      // Counted from the start (hydra's start-up included); the bound that matters, from the
      // cut, is asserted below.
      const lost = when(80_000, 'an error naming the lost rank 1 on h2 in rank 0');
      let hydra: import('node:child_process').ChildProcess | null = null;
      let message = '';
      const pids: number[] = [];
      try {
        const job = runOn('h1', ['mpiexec.hydra', '-bootstrap-exec', NETNS_SSH, '-hosts', 'h1,h2', '-n', '2',
          node, launcherProgram('wait-on-peer'), ...(mode === 'idle' ? [] : [mode])], 90_000, {
          onStdout: (text, child) => {
            hydra = child;
            pids.splice(0, pids.length, ...[...text.matchAll(/ pid (\d+) ready$/gm)].map((m) => Number(m[1])));
            ready.poke((text.match(/ ready$/gm) ?? []).length === 2);
            if (mode === 'return') {
              const m = /rank 0 caught MPI\.Exception of class ERR_OTHER: MPI_COMM_WORLD\.progress: ch_ucx: rank 0 lost rank 1 \(on h2\b[^\n]*/.exec(text);
              if (m !== null) message = m[0];
              lost.poke(m !== null);
            }
          },
          onStderr: (text) => {
            if (mode === 'return') return;
            const m = /PeerLostError: ch_ucx: rank 0 lost rank 1 \(on h2\b[^\n]*/.exec(text);
            if (m !== null) message = m[0];
            lost.poke(m !== null);
          },
        });
        await ready.done;
        await link('cut', 'h2');
        const cutAt = Date.now();
        const lostAt = await lost.done;
        // The peer watch's default timeout is 8 s, and it looks every 2 s.
        assert.ok(lostAt - cutAt < 15_000, `rank 0 noticed after ${lostAt - cutAt} ms`);
        // With data in flight only the peer watch can tell (TCP retransmits and never probes).
        if (mode === 'stream') assert.match(message, /nothing heard for over 8\.0 s, TSMPI_UCX_PEER_TIMEOUT/);
        await link('heal', 'h2');
        // hydra itself cannot tell its proxy on the cut host to stop, and waits: end it here.
        (hydra as import('node:child_process').ChildProcess | null)?.kill('SIGKILL');
        const r = await job;
        assert.doesNotMatch(r.stdout, /received what was never sent/);
      } finally {
        await link('heal', 'h2');
        (hydra as import('node:child_process').ChildProcess | null)?.kill('SIGKILL');
        // Whatever hydra left running (the hosts share the pid space, so the test reaches them).
        for (const pid of pids) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
      }
    });
  }
});
