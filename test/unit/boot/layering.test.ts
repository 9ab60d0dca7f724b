// The layering issue 14 asks for, read from the sources: mpid imports no device, nothing of
// mpir and not the bootstrap; a device imports nothing of mpir, of the bootstrap or of another
// device; no device names mpid's packet types or header words; no file under src/mpid,
// src/ch_*, src/sisci or src/boot is over 700 lines.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { ROOT } from '../../helpers.js';

const SRC = path.join(ROOT, 'src');
const DEVICES = fs.readdirSync(SRC).filter((d) => d.startsWith('ch_'));

function files(dir: string): string[] {
  return fs.readdirSync(path.join(SRC, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f));
}

/** The top-level folders of src that `file` imports from. */
function importedLayers(file: string): string[] {
  const text = fs.readFileSync(path.join(SRC, file), 'utf8');
  const layers: string[] = [];
  for (const m of text.matchAll(/from '(\.[^']+)'/g)) {
    const target = path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), m[1]!));
    layers.push(target.split(path.sep)[0]!);
  }
  return layers;
}

describe('layering of mpid and the devices', () => {
  it('finds the devices', () => assert.deepEqual(DEVICES.sort(), ['ch_sci', 'ch_shmem']));

  it('mpid imports no device, nothing of mpir and not the bootstrap', () => {
    for (const f of files('mpid')) {
      const bad = importedLayers(f).filter((l) => l.startsWith('ch_') || ['sisci', 'mpir', 'boot'].includes(l));
      assert.deepEqual(bad, [], `${f} imports ${bad.join(', ')}`);
    }
  });

  it('a device imports nothing of mpir, of the bootstrap or of another device', () => {
    for (const dev of DEVICES) {
      for (const f of files(dev)) {
        const bad = importedLayers(f).filter((l) => l !== dev && (l.startsWith('ch_') || ['mpir', 'boot'].includes(l)));
        assert.deepEqual(bad, [], `${f} imports ${bad.join(', ')}`);
      }
    }
  });

  it('no device names a packet type or a word of mpid\'s header', () => {
    for (const dev of DEVICES) {
      for (const f of files(dev)) {
        const text = fs.readFileSync(path.join(SRC, f), 'utf8');
        const hit = /\b(PKT_\w+|W_(TYPE|CTX|SRC|TAG|LEN|SREQ|RREQ)|FLAG_SYNC)\b|hdr\/packet/.exec(text);
        assert.equal(hit, null, `${f} names ${hit?.[0]}`);
      }
    }
  });

  it('no file of mpid, the devices, sisci or boot is over 700 lines', () => {
    for (const dir of ['mpid', 'sisci', 'boot', ...DEVICES]) {
      for (const f of files(dir)) {
        const lines = fs.readFileSync(path.join(SRC, f), 'utf8').split('\n').length;
        assert.ok(lines <= 700, `${f} has ${lines} lines`);
      }
    }
  });
});
