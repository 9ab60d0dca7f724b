/**
 * Drives PMI-1 spawn and the name service with the PMI client directly (no MPI), under any
 * process manager: `spawn-probe <role> [args...]`. Every line it prints starts with the role
 * and the process's rank, and says what it saw, so a test compares exact values.
 *
 *   parent <wdir> [host]  each parent rank spawns its own job: 2 processes of `child` (args with
 *                 a space and an '=', info wdir and env) and 1 of `child` with other args and
 *                 env, preput PARENT_PORT=port-of-<rank>; publishes parent-svc-<rank>, waits
 *                 for its children's child-svc-<rank>, unpublishes it; `host` adds info host.
 *                 With SPAWN_PROBE_SERIAL=1 the parents spawn in turn (rank r waits for the
 *                 name spawned-<r-1>): hydra gathers multi-command spawns in one state per
 *                 server, so two at once interleave (docs/spawn.md)
 *   child ...     reports rank, size, appnum, PMI_SPAWNED, preput, cwd, env, args; runs a
 *                 barrier, put and get in its own key-value space; checks the parent's key is
 *                 not there; looks up and publishes names
 *   refused [host] spawns a command that does not exist, one on a host that does not exist,
 *                 one with a wdir that does not exist, one with a preput value holding a space,
 *                 and prints the errors (with `host`, the first and third start there)
 *   failing [host] spawns 1 `fail` child (on `host`), then waits (the launcher must stop it)
 *   fail          creates a file in /dev/shm named like a segment of its job, then exits 1
 *   aborting      spawns 1 `abort` child, then waits; `abort` asks PMI to abort with code 7
 *   nested        spawns 1 `mid`, which spawns 1 `leaf`; each prints the preput it got
 */
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { PmiClient } from '../../../src/pmi/index.js';

const self = fileURLToPath(import.meta.url);
const [role = 'parent', ...rest] = process.argv.slice(2);
const pmi = PmiClient.fromEnvironment();
if (pmi === null) throw new Error('spawn-probe must be started by a process manager');
const me = `${role} ${pmi.rank}`;
const say = (text: string) => console.log(`${me}: ${text}`);
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function errorOf(f: () => unknown): string {
  try {
    f();
    return 'no error';
  } catch (e) {
    return (e as Error).message;
  }
}

switch (role) {
  case 'parent': {
    const [wdir = os.tmpdir(), host] = rest;
    pmi.put('parentkey', `parent-${pmi.rank}`);
    pmi.barrier();
    pmi.publishName(`parent-svc-${pmi.rank}`, `parent-port-${pmi.rank}`);
    const hostInfo: [string, string][] = host === undefined ? [] : [['host', host]];
    const serial = process.env.SPAWN_PROBE_SERIAL === '1';
    if (serial && pmi.rank > 0) {
      for (let i = 0; i < 600 && pmi.lookupName(`spawned-${pmi.rank - 1}`) === undefined; i++) sleep(50);
    }
    const errcodes = pmi.spawn({
      blocks: [
        { command: process.execPath, args: [self, 'child', String(pmi.rank), 'two words', 'k=v'], maxprocs: 2,
          info: [['wdir', wdir], ['env', `CHILD_VAR=first SECOND=2`], ['unknown_key', 'ignored'], ...hostInfo] },
        { command: process.execPath, args: [self, 'child', String(pmi.rank), 'other'], maxprocs: 1,
          info: [['env', 'CHILD_VAR=second'], ...hostInfo] },
      ],
      preput: [['PARENT_PORT', `port-of-${pmi.rank}`]],
    });
    if (serial) pmi.publishName(`spawned-${pmi.rank}`, 'yes');
    say(`errcodes ${errcodes.join(',')}`);
    say(`own parentValue ${pmi.parentValue('PARENT_PORT')}`);
    // The children publish child-svc-<our rank> once they have checked everything.
    let port: string | undefined;
    for (let i = 0; i < 400 && port === undefined; i++) {
      port = pmi.lookupName(`child-svc-${pmi.rank}`);
      if (port === undefined) sleep(50);
    }
    say(`child published ${port}`);
    say(`publish taken: ${errorOf(() => pmi.publishName(`child-svc-${pmi.rank}`, 'again'))}`);
    pmi.unpublishName(`child-svc-${pmi.rank}`);
    say(`after unpublish ${pmi.lookupName(`child-svc-${pmi.rank}`)}`);
    say(`unpublish again: ${errorOf(() => pmi.unpublishName(`child-svc-${pmi.rank}`))}`);
    pmi.barrier();
    pmi.unpublishName(`parent-svc-${pmi.rank}`);
    if (serial) pmi.unpublishName(`spawned-${pmi.rank}`);
    pmi.finalize();
    break;
  }
  case 'child': {
    const [parent = '?', ...args] = rest;
    say(`size ${pmi.size} appnum ${pmi.getAppnum()} spawned ${process.env.PMI_SPAWNED} preput ${pmi.parentValue('PARENT_PORT')}`);
    say(`cwd ${process.cwd()} CHILD_VAR ${process.env.CHILD_VAR} SECOND ${process.env.SECOND} args ${JSON.stringify(args)}`);
    say(`job ${process.env.TSMPI_JOBID ?? '-'} universe ${pmi.getUniverseSize()} host ${os.hostname()}`);
    // Every spawned job uses the same keys: a space shared between jobs would show another parent's value.
    pmi.put(`childkey-${pmi.rank}`, `child-${parent}-${pmi.rank}`);
    pmi.barrier();
    const peer = (pmi.rank + 1) % pmi.size;
    say(`peer ${peer} has ${pmi.get(`childkey-${peer}`)} parentkey ${pmi.get('parentkey')}`);
    say(`lookup parent ${pmi.lookupName(`parent-svc-${parent}`)} lookup none ${pmi.lookupName('no-such-service')}`);
    pmi.barrier();
    if (pmi.rank === 0) pmi.publishName(`child-svc-${parent}`, `child-port-${parent}`);
    pmi.finalize();
    break;
  }
  case 'refused': {
    const on: [string, string][] = rest[0] === undefined ? [] : [['host', rest[0]]];
    say(`bad command: ${errorOf(() => pmi.spawn({ blocks: [{ command: '/nonexistent/prog', args: [], maxprocs: 2, info: on }], preput: [] }))}`);
    say(`bad host: ${errorOf(() => pmi.spawn({ blocks: [{ command: process.execPath, args: [self, 'child'], maxprocs: 1, info: [['host', 'no-such-host']] }], preput: [] }))}`);
    say(`bad wdir: ${errorOf(() => pmi.spawn({ blocks: [{ command: process.execPath, args: [self, 'child'], maxprocs: 1, info: [['wdir', '/nonexistent/dir'], ...on] }], preput: [] }))}`);
    say(`preput with a space: ${errorOf(() => pmi.spawn({ blocks: [{ command: process.execPath, args: [], maxprocs: 1, info: [] }], preput: [['K', 'a b']] }))}`);
    pmi.finalize();
    break;
  }
  case 'failing': {
    fs.writeFileSync(`/dev/shm/tsmpi-${process.env.TSMPI_JOBID}-probe-parent`, 'x');
    say(`job ${process.env.TSMPI_JOBID}`);
    const on: [string, string][] = rest[0] === undefined ? [] : [['host', rest[0]]];
    say(`errcodes ${pmi.spawn({ blocks: [{ command: process.execPath, args: [self, 'fail'], maxprocs: 1, info: on }], preput: [] }).join(',')}`);
    for (;;) sleep(1000);
  }
  case 'fail': {
    fs.writeFileSync(`/dev/shm/tsmpi-${process.env.TSMPI_JOBID}-probe-child`, 'x');
    say(`job ${process.env.TSMPI_JOBID} host ${os.hostname()}`);
    sleep(300);
    process.exit(1);
  }
  case 'aborting': {
    say(`errcodes ${pmi.spawn({ blocks: [{ command: process.execPath, args: [self, 'abort'], maxprocs: 1, info: [] }], preput: [] }).join(',')}`);
    for (;;) sleep(1000);
  }
  case 'abort': {
    pmi.abort(7, 'the child gives up');
    for (;;) sleep(1000);
  }
  case 'nested':
  case 'mid': {
    if (role === 'mid') say(`preput ${pmi.parentValue('LEVEL')}`);
    const next = role === 'nested' ? 'mid' : 'leaf';
    say(`errcodes ${pmi.spawn({ blocks: [{ command: process.execPath, args: [self, next], maxprocs: 1, info: [] }], preput: [['LEVEL', `from-${role}`]] }).join(',')}`);
    pmi.finalize();
    break;
  }
  case 'leaf':
    say(`preput ${pmi.parentValue('LEVEL')}`);
    pmi.finalize();
    break;
  default:
    throw new Error(`unknown role ${role}`);
}
