import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MAX_SPAWNED, planSpawn, type PlacementContext, type PlannedProcess } from '../../../bin/launcher/spawn-plan.js';
import type { SpawnBlock } from '../../../src/pmi/index.js';

const context = (over: Partial<PlacementContext> = {}): PlacementContext => ({
  hosts: null, localNames: ['here', 'localhost'], launcherHost: null, load: () => 0, cwd: '/', env: process.env, ...over,
});
const block = (over: Partial<SpawnBlock> = {}): SpawnBlock => ({ command: process.execPath, args: ['a'], maxprocs: 1, info: [], ...over });

function processes(plan: ReturnType<typeof planSpawn>): readonly PlannedProcess[] {
  if ('error' in plan) assert.fail(plan.error);
  return plan.processes;
}

describe('spawn plan (tsmpiexec)', () => {
  it('numbers ranks over the commands, appnum per command (one of 0 processes counts), wdir, env and PMI_SPAWNED', () => {
    const ps = processes(planSpawn({
      blocks: [block({ maxprocs: 2, info: [['wdir', os.tmpdir()], ['env', 'A=1  B=x=y']] }), block({ maxprocs: 0 }),
        block({ args: ['b'], info: [['other', 'ignored']] })],
      preput: [],
    }, context()));
    assert.deepEqual(ps.map((p) => [p.rank, p.appnum, p.cwd, p.args[0], p.host]), [
      [0, 0, os.tmpdir(), 'a', null], [1, 0, os.tmpdir(), 'a', null], [2, 2, '/', 'b', null]]);
    assert.deepEqual(ps[0]!.env, { PMI_SPAWNED: '1', A: '1', B: 'x=y' });
    assert.deepEqual(ps[2]!.env, { PMI_SPAWNED: '1' });
  });

  it('finds a command in info path, and refuses one it cannot find, a bad wdir, env or host', () => {
    const dir = path.dirname(process.execPath);
    const ps = processes(planSpawn({ blocks: [block({ command: path.basename(process.execPath), info: [['path', dir]] })], preput: [] },
      context({ env: { PATH: '' } })));
    assert.equal(ps[0]!.command, path.join(dir, path.basename(process.execPath)));
    const error = (b: SpawnBlock, ctx = context()) => {
      const plan = planSpawn({ blocks: [block(), b], preput: [] }, ctx);
      return 'error' in plan ? plan.error : 'planned';
    };
    assert.match(error(block({ command: 'no-such-program-xyz' })), /^command 1 \("no-such-program-xyz"\): cannot find an executable "no-such-program-xyz" on PATH/);
    assert.match(error(block({ info: [['wdir', '/no/such/dir']] })), /info wdir "\/no\/such\/dir" is not a directory/);
    assert.match(error(block({ info: [['env', 'NOEQUALS']] })), /info env entry "NOEQUALS" is not NAME=value/);
    assert.match(error(block({ info: [['host', 'elsewhere']] })), /info host "elsewhere" is not one of this job's hosts \(here, localhost\)/);
    assert.equal(error(block({ info: [['host', 'localhost']] })), 'planned');
  });

  it('places on the least loaded host per slot, or on the hosts info host names, in turn', () => {
    const hosts = [{ host: 'h1', slots: 2 }, { host: 'h2', slots: 1 }];
    const load = (h: string) => (h === 'h1' ? 2 : 0);
    const ps = processes(planSpawn({ blocks: [block({ maxprocs: 4 })], preput: [] }, context({ hosts, load })));
    // h1 is full (2 of 2), h2 empty: h2, then h1 and h2 tie at 1.0 (h1 named first), then h2 (2 vs 1.5).
    assert.deepEqual(ps.map((p) => p.host), ['h2', 'h1', 'h2', 'h1']);
    const named = processes(planSpawn({ blocks: [block({ maxprocs: 3, info: [['host', 'h2,h1']] })], preput: [] }, context({ hosts, load })));
    assert.deepEqual(named.map((p) => p.host), ['h2', 'h1', 'h2']);
    const plan = planSpawn({ blocks: [block({ info: [['host', 'h3']] })], preput: [] }, context({ hosts }));
    assert.ok('error' in plan && /"h3" is not one of this job's hosts \(h1, h2\)/.test(plan.error));
  });

  it('refuses a spawn of more processes than one spawn may start, before planning any', () => {
    const plan = planSpawn({ blocks: [block({ maxprocs: MAX_SPAWNED }), block({ maxprocs: 1 })], preput: [] }, context({}));
    assert.ok('error' in plan && plan.error.includes(`asks for ${MAX_SPAWNED + 1} processes`), JSON.stringify(plan));
    const huge = planSpawn({ blocks: [block({ maxprocs: 2 ** 31 - 1 })], preput: [] }, context({}));
    assert.ok('error' in huge, 'a count of 2^31 - 1 is refused');
  });
});
