import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { HostListError, parseHostList, placeRanks, readHostfile } from '../../bin/launcher/hosts.js';

/** Host lists, hostfiles and tsmpiexec's placement rule (hydra's: blocks by slots, round after round). */
describe('tsmpiexec host lists and placement', () => {
  const place = (list: string, n: number) => Object.fromEntries(placeRanks(parseHostList(list), n));

  it('gives each host as many consecutive ranks as it has slots, in the order named', () => {
    assert.deepEqual(place('a:2,b:2', 4), { a: [0, 1], b: [2, 3] });
    assert.deepEqual(place('a,b,c', 3), { a: [0], b: [1], c: [2] });
    assert.deepEqual(place('b:3,a', 2), { b: [0, 1] }, 'a host with no rank is left out');
  });

  it('oversubscribes like hydra: -n beyond the slots fills the hosts again, round after round', () => {
    assert.deepEqual(place('a,b', 5), { a: [0, 2, 4], b: [1, 3] });
    assert.deepEqual(place('a:2,b', 7), { a: [0, 1, 3, 4, 6], b: [2, 5] });
  });

  it('counts a host named twice as one, with the slots added up, where it was first named', () => {
    assert.deepEqual(place('a,b,a', 4), { a: [0, 1, 3], b: [2] });
  });

  it('reads hostfiles: host[:slots] or host slots=N per line, comments and blank lines skipped', () => {
    const file = path.join(os.tmpdir(), `tsmpi-hosts-${process.pid}`);
    fs.writeFileSync(file, '# cluster\nnode1:4\n\n  node2 slots=2  # the small one\n10.0.0.7\n');
    try {
      assert.deepEqual(readHostfile(file), [{ host: 'node1', slots: 4 }, { host: 'node2', slots: 2 }, { host: '10.0.0.7', slots: 1 }]);
      fs.writeFileSync(file, 'node1\nnode2:x\n');
      assert.throws(() => readHostfile(file), (e: Error) => e instanceof HostListError && /line 2: "node2:x": slots must be an integer/.test(e.message));
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('rejects what is not a host list, naming the entry', () => {
    assert.throws(() => parseHostList(''), /expected host\[:slots\] entries/);
    assert.throws(() => parseHostList('a,'), /expected host\[:slots\] entries/);
    assert.throws(() => parseHostList('a b'), /"a b" is not a host name/);
    assert.throws(() => parseHostList('$(reboot)'), /is not a host name/);
    assert.throws(() => parseHostList('a:2000'), /slots must be an integer in \[1, 1024\]/);
  });
});
