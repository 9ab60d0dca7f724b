import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { declareBool, declareChoice, declareInt, declaredTunables, parseSize } from '../../../src/common/config.js';
import { ConfigError } from '../../../src/common/errors.js';
import { jobIdFrom, segmentName, sweepJobSegments } from '../../../src/common/segment-names.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

describe('TSMPI_* tunables', () => {
  const size = declareInt({ name: 'TSMPI_TEST_SIZE', layer: 'test', description: 'd', default: 4096, min: 0, max: 1 << 20 });
  const flag = declareBool({ name: 'TSMPI_TEST_FLAG', layer: 'test', description: 'd', default: true });
  const mode = declareChoice({ name: 'TSMPI_TEST_MODE', layer: 'test', description: 'd', default: 'a', choices: ['a', 'b'] as const });

  it('reads defaults, integers with size suffixes, booleans and choices', () => {
    assert.equal(size.read({}), 4096);
    assert.equal(size.read({ TSMPI_TEST_SIZE: '64k' }), 65536);
    assert.equal(size.read({ TSMPI_TEST_SIZE: ' 17 ' }), 17);
    assert.equal(flag.read({ TSMPI_TEST_FLAG: '0' }), false);
    assert.equal(flag.read({ TSMPI_TEST_FLAG: 'yes' }), true);
    assert.equal(mode.read({ TSMPI_TEST_MODE: 'b' }), 'b');
    assert.equal(parseSize('2m'), 2 * 1024 * 1024);
    assert.equal(parseSize('x'), null);
  });

  it('names the variable, the value and the accepted range on bad input', () => {
    assert.throws(() => size.read({ TSMPI_TEST_SIZE: '2g' }), (e: unknown) =>
      e instanceof ConfigError && /TSMPI_TEST_SIZE="2g" is not an integer in \[0, 1048576\]/.test(e.message));
    assert.throws(() => size.read({ TSMPI_TEST_SIZE: 'lots' }), ConfigError);
    assert.throws(() => flag.read({ TSMPI_TEST_FLAG: 'maybe' }), /TSMPI_TEST_FLAG="maybe" is not a boolean/);
    assert.throws(() => mode.read({ TSMPI_TEST_MODE: 'c' }), /TSMPI_TEST_MODE="c" is not one of a, b/);
  });

  it('registers each declaration once, for the documentation table', () => {
    const names = declaredTunables().map((t) => t.name);
    assert.ok(names.includes('TSMPI_TEST_SIZE'));
    assert.throws(() => declareBool({ name: 'TSMPI_TEST_FLAG', layer: 'test', description: 'd', default: false }), /declared twice/);
  });
});

describe('segment names', () => {
  it('uses the launcher job id, else a digest of the kvsname', () => {
    assert.equal(jobIdFrom({ TSMPI_JOBID: 'abc123' }, 'kvs'), 'abc123');
    const a = jobIdFrom({}, 'kvs_1_0');
    assert.match(a, /^[0-9a-f]{16}$/);
    assert.equal(jobIdFrom({}, 'kvs_1_0'), a);
    assert.notEqual(jobIdFrom({}, 'kvs_2_0'), a);
    assert.match(segmentName('abc', 3, 'rank'), /^tsmpi-abc-3-rank-[0-9a-f]{12}$/);
    assert.notEqual(segmentName('abc', 3, 'rank'), segmentName('abc', 3, 'rank'));
  });

  it('sweeps exactly the segments of one job', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-sweep-'));
    for (const n of ['tsmpi-job1-0-rank-aa', 'tsmpi-job1-1-win-bb', 'tsmpi-job12-0-rank-cc', 'other']) fs.writeFileSync(path.join(dir, n), '');
    assert.deepEqual(sweepJobSegments('job1', dir).sort(), ['tsmpi-job1-0-rank-aa', 'tsmpi-job1-1-win-bb']);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['other', 'tsmpi-job12-0-rank-cc']);
    fs.rmSync(dir, { recursive: true });
  });
});
