// The layering issue 14 asks for, read from the sources: mpid imports no device, nothing of
// mpir and not the bootstrap; a device imports nothing of mpir, of the bootstrap or of another
// device; no device names mpid's packet types or header words; no file under src/mpid,
// src/ch_*, src/sisci or src/boot is over 700 lines. One-sided: mpir/rma -> osc -> mpid ->
// devices, so osc imports nothing of mpir, boot, a device or sisci, and mpir's one-sided face
// reaches mpid only through osc; no file under src/osc is over 700 lines; every registered
// device declares its memory capabilities, as the window layer reads them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { DEVICES as REGISTERED } from '../../../src/boot/devices.js';
import {
  ALL_ATOMICS, ALL_WIDTHS, hasFlags, MEM_CPU_ATOMICS, MEM_EXPORTED, MEM_LOAD_STORE, RMA_ATOMICS, RMA_CHECKED, RMA_GET,
  RMA_PUT,
} from '../../../src/mpid/memory.js';
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

describe('layering of the one-sided layer (src/osc)', () => {
  it('osc imports nothing of mpir, of the bootstrap, of a device or of sisci', () => {
    const osc = files('osc');
    assert.ok(osc.length > 5, `src/osc holds ${osc.length} files`);
    for (const f of osc) {
      const bad = importedLayers(f).filter((l) => l.startsWith('ch_') || ['mpir', 'boot', 'sisci'].includes(l));
      assert.deepEqual(bad, [], `${f} imports ${bad.join(', ')}`);
    }
  });

  it('mpir\'s one-sided face (src/mpir/rma) imports nothing of mpid, a device, sisci or the addon: only osc below it', () => {
    const rma = files(path.join('mpir', 'rma'));
    assert.ok(rma.some((f) => f.endsWith('win.ts')));
    for (const f of rma) {
      const bad = importedLayers(f).filter((l) => l.startsWith('ch_') || ['mpid', 'sisci', 'native', 'boot'].includes(l));
      assert.deepEqual(bad, [], `${f} imports ${bad.join(', ')}`);
    }
    assert.ok(importedLayers(path.join('mpir', 'rma', 'win.ts')).includes('osc'), 'win.ts works through osc');
  });

  it('nothing below the API imports osc except mpir (osc sits between mpir and mpid)', () => {
    for (const dir of ['mpid', 'sisci', 'boot', 'common', ...DEVICES]) {
      for (const f of files(dir)) assert.ok(!importedLayers(f).includes('osc'), `${f} imports osc`);
    }
  });

  it('no file of osc is over 700 lines', () => {
    for (const f of files('osc')) {
      const lines = fs.readFileSync(path.join(SRC, f), 'utf8').split('\n').length;
      assert.ok(lines <= 700, `${f} has ${lines} lines`);
    }
  });
});

describe('memory capabilities of the registered devices', () => {
  const byName = (name: string) => REGISTERED.find((d) => d.name === name)!;

  it('every registered device declares them', () => {
    for (const d of REGISTERED) assert.ok(d.memory !== undefined, `${d.name} declares no memory capabilities`);
  });

  it('ch_shmem: load/store memory of the node with CPU atomics of every width and op, and the node memory service', () => {
    const m = byName('ch_shmem').memory!;
    assert.ok(hasFlags(m, MEM_LOAD_STORE | MEM_CPU_ATOMICS | RMA_PUT | RMA_GET));
    assert.equal(m.flags & MEM_EXPORTED, 0);
    assert.equal(m.atomicWidths, ALL_WIDTHS);
    assert.equal(m.atomicOps, ALL_ATOMICS);
    assert.ok(byName('ch_shmem').nodeMemory !== undefined, 'ch_shmem offers node regions');
  });

  it('ch_sci: exported segments with checked remote stores and no remote atomics', () => {
    const m = byName('ch_sci').memory!;
    assert.ok(hasFlags(m, MEM_EXPORTED | RMA_PUT | RMA_GET | RMA_CHECKED));
    assert.equal(m.flags & (MEM_LOAD_STORE | MEM_CPU_ATOMICS | RMA_ATOMICS), 0);
    assert.equal(m.atomicWidths, 0);
    assert.equal(m.atomicOps, 0);
    assert.equal(byName('ch_sci').nodeMemory, undefined);
  });

  it('self: our own memory, loads, stores and CPU atomics', () => {
    const m = byName('self').memory!;
    assert.ok(hasFlags(m, MEM_LOAD_STORE | MEM_CPU_ATOMICS));
    assert.equal(m.atomicOps, ALL_ATOMICS);
  });
});
