import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, it } from 'node:test';

import { bringHostsUp } from '../emulated-hosts.js';
import { DIST, tsmpiexec } from '../helpers.js';
import { node, tsmpiexecOnH1, whyNoMultiHost } from './hosts-helpers.js';

/**
 * tsmpiexec --stats and --stats=json: a program of known traffic (programs/stats-traffic.ts:
 * 7 small and 3 rendezvous messages to the right neighbour, 4 Bcasts per rank) reports at
 * MPI.Finalize through the PMI key-value space; the launcher prints per rank and in total.
 */
const PROGRAM = path.join(DIST, 'test', 'launcher', 'programs', 'stats-traffic.js');
const RNDV = 3;
const BCASTS = 4;
const RNDV_BYTES = 1024 * 1024;

interface StatsJson {
  ranks: number;
  reported: number[];
  variables: { name: string; class: string; unit: string; ranks: (number | null)[]; total: number }[];
}

/** The JSON line of --stats=json on stderr. */
function statsOf(stderr: string): StatsJson {
  const line = stderr.split('\n').find((l) => l.startsWith('{"ranks"'));
  assert.ok(line, `no statistics line on stderr:\n${stderr}`);
  return JSON.parse(line) as StatsJson;
}

function variable(s: StatsJson, name: string): StatsJson['variables'][number] {
  const v = s.variables.find((x) => x.name === name);
  assert.ok(v, `no variable ${name} in ${s.variables.map((x) => x.name).join(', ')}`);
  return v;
}

/** Checks the known traffic of `n` ranks in the JSON statistics. */
function checkTraffic(s: StatsJson, n: number): void {
  assert.equal(s.ranks, n);
  assert.deepEqual(s.reported, [...Array(n).keys()]);
  const rndv = variable(s, 'mpid_rndv_sends');
  const fallbacks = variable(s, 'mpid_eager_fallbacks');
  const bytes = variable(s, 'mpid_rndv_bytes');
  for (let r = 0; r < n; r++) {
    // Eager-sized messages may fall back to rendezvous when the peer's cells are full: counted apart.
    assert.equal(rndv.ranks[r]! - fallbacks.ranks[r]!, RNDV, `rank ${r}: rendezvous sends`);
    assert.ok(bytes.ranks[r]! >= RNDV * (RNDV_BYTES + r) && bytes.ranks[r]! < RNDV * (RNDV_BYTES + r) + 100_000, `rank ${r}: rendezvous bytes ${bytes.ranks[r]}`);
    const bcasts = s.variables.filter((v) => v.name.startsWith('coll_bcast_')).reduce((a, v) => a + v.ranks[r]!, 0);
    assert.equal(bcasts, BCASTS, `rank ${r}: Bcast calls over the algorithms`);
  }
  for (const v of s.variables) {
    const values = v.ranks.map((x) => x!);
    const total = v.class === 'counter' ? values.reduce((a, b) => a + b, 0) : Math.max(0, ...values);
    assert.equal(v.total, total, `${v.name}: total`);
  }
  assert.equal(variable(s, 'mpid_rndv_sends').total - variable(s, 'mpid_eager_fallbacks').total, RNDV * n);
  const high = variable(s, 'mpid_unexpected_queue_max');
  assert.equal(high.class, 'highwatermark');
}

describe('tsmpiexec --stats', () => {
  it('--stats=json: per-rank values and totals of a program with known traffic (3 ranks, 2 emulated SCI nodes)', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '3', '--sci-nodes', '2', '--stats=json', node, PROGRAM], 50_000);
    assert.equal(r.status, 0, r.stderr);
    const s = statsOf(r.stderr);
    checkTraffic(s, 3);
    // Ranks 0 and 1 share a node (ch_shmem); rank 1 sends to rank 2 on the other node through ch_sci.
    assert.equal(variable(s, 'ch_sci_rndv_sends').ranks[1]! - variable(s, 'mpid_eager_fallbacks').ranks[1]!, RNDV);
    assert.equal(variable(s, 'ch_shmem_rndv_sends').ranks[0]! - variable(s, 'mpid_eager_fallbacks').ranks[0]!, RNDV);
  });

  it('--stats: one table of the non-zero variables, a column per rank and the total', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '2', '--stats', node, PROGRAM], 50_000);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stderr.split('\n');
    const head = lines.findIndex((l) => l.startsWith('# Variable'));
    assert.ok(head >= 0, r.stderr);
    assert.deepEqual(lines[head]!.split(/\s{2,}/).slice(-3), ['rank 0', 'rank 1', 'total']);
    const row = lines.find((l) => l.startsWith('mpid_rndv_bytes '));
    assert.ok(row, r.stderr);
    const [, , a, b, total] = row.split(/\s+/);
    assert.equal(Number(a) + Number(b), Number(total));
    assert.ok(Number(a) >= RNDV * RNDV_BYTES && Number(b) >= RNDV * (RNDV_BYTES + 1), row);
    assert.ok(!lines.some((l) => /^\S+\s+\S+(\s+0)+\s*$/.test(l)), 'rows of zeros are left out');
  });

  it('without --stats the ranks report nothing and no table is printed', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '2', node, PROGRAM], 50_000);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /tsmpi statistics|"variables"/);
  });

  it('rejects --stats=xml with status 2; --help documents --stats', { timeout: 30_000 }, async () => {
    const bad = await tsmpiexec(['--stats=xml', '-n', '1', node, PROGRAM], 20_000);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--stats=xml: expected --stats, --stats=table or --stats=json/);
    const help = await tsmpiexec(['--help'], 20_000);
    assert.match(help.stdout, /--stats\[=FORMAT\]/);
  });
});

describe('tsmpiexec --stats across hosts', { skip: whyNoMultiHost() }, () => {
  before(() => bringHostsUp(2));

  it('ranks on other hosts report through the agents\' PMI connection (--hosts h1,h2:2)', { timeout: 150_000 }, async () => {
    const r = await tsmpiexecOnH1(['--hosts', 'h1,h2:2', '-n', '3', '--stats=json', node, PROGRAM], 120_000);
    assert.equal(r.status, 0, r.stderr);
    const s = statsOf(r.stderr);
    checkTraffic(s, 3);
    // Rank 0 (h1) sends to rank 1 (h2) through ch_ucx.
    assert.equal(variable(s, 'ch_ucx_rndv_sends').ranks[0]! - variable(s, 'mpid_eager_fallbacks').ranks[0]!, RNDV);
  });
});
