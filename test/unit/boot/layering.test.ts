// The layering issue 14 asks for, read from the sources: mpid imports no device, nothing of
// mpir and not the bootstrap; a device imports nothing of mpir, of the bootstrap or of another
// device; mpir imports nothing of the native addon, of sisci or of a device (it reaches them
// only through mpid); no device names mpid's packet types or header words; no file under src/
// is over 700 lines; and no module of the build imports itself through a runtime cycle.
// One-sided: mpir/rma -> osc -> mpid -> devices, so osc imports nothing of mpir, boot, a device
// or sisci, and mpir's one-sided face reaches mpid only through osc; every registered device
// declares its memory capabilities, as the window layer reads them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { DEVICES as REGISTERED } from '../../../src/boot/devices.js';
import {
  ALL_ATOMICS, ALL_WIDTHS, ATOMIC_ADD, ATOMIC_AND, ATOMIC_CSWAP, ATOMIC_OR, ATOMIC_SWAP, ATOMIC_XOR, hasFlags, MEM_CPU_ATOMICS,
  MEM_EXPORTED, MEM_LOAD_STORE, RMA_ATOMICS, RMA_CHECKED, RMA_FLUSH, RMA_GET, RMA_PUT, WIDTH_4, WIDTH_8,
} from '../../../src/mpid/memory.js';
import { DIST, ROOT } from '../../helpers.js';

const SRC = path.join(ROOT, 'src');
const DEVICES = fs.readdirSync(SRC).filter((d) => d.startsWith('ch_'));

function files(dir: string): string[] {
  return fs.readdirSync(path.join(SRC, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f));
}

/**
 * The top-level folders of src that `file` imports from: `import ... from`, `export ... from`,
 * a bare `import '...'` and a dynamic `import('...')`.
 */
function importedLayers(file: string): string[] {
  return layersIn(fs.readFileSync(path.join(SRC, file), 'utf8'), file);
}

function layersIn(text: string, file: string): string[] {
  const layers: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.[^']+)'/g)) {
    const target = path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), m[1]!));
    layers.push(target.split(path.sep)[0]!);
  }
  return layers;
}

describe('layering of mpid and the devices', () => {
  it('finds the devices', () => assert.deepEqual(DEVICES.sort(), ['ch_sci', 'ch_shmem', 'ch_ucx']));

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
});

describe('sizes of the sources', () => {
  it('no file in src is over 700 lines', () => {
    const all = fs.readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    assert.ok(all.length > 100, `only ${all.length} sources found under ${SRC}`);
    for (const f of all) {
      const lines = fs.readFileSync(path.join(SRC, f), 'utf8').split('\n').length;
      assert.ok(lines <= 700, `${f} has ${lines} lines`);
    }
  });
});

describe('layering of mpir', () => {
  it('mpir imports nothing of the native addon, of sisci or of a device', () => {
    const checked = files('mpir');
    assert.ok(checked.length > 40, `only ${checked.length} files of mpir checked`);
    for (const f of checked) {
      const bad = importedLayers(f).filter((l) => l.startsWith('ch_') || ['native', 'sisci'].includes(l));
      assert.deepEqual(bad, [], `${f} imports ${bad.join(', ')}: reach them through an mpid module (e.g. mpid/pack-kernels.ts)`);
    }
  });

  it('sees every form of import', () => {
    const text = "import { a } from '../native/addon.js';\nexport { b } from '../ch_sci/x.js';\nimport '../sisci/y.js';\n" +
      "const c = () => import('../mpid/z.js');\nimport type { D } from './own.js';\n";
    assert.deepEqual(layersIn(text, path.join('mpir', 'probe.ts')), ['native', 'ch_sci', 'sisci', 'mpid', 'mpir']);
  });
});

describe('layering of tsmpi/futures', () => {
  it('futures is a client of the public API: it imports only src/index.ts and its own modules', () => {
    const checked = files('futures');
    assert.ok(checked.length >= 5, `only ${checked.length} files of futures checked`);
    for (const f of checked) {
      const bad = importedLayers(f).filter((l) => l !== 'futures' && l !== 'index.js');
      assert.deepEqual(bad, [], `${f} imports ${bad.join(', ')}: use what 'tsmpi' exports`);
    }
  });
});

/** The relative imports of a compiled module (type-only imports are gone from the JavaScript). */
function runtimeImports(text: string, file: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import\s*'(\.[^']+)'|(?:import|export)\b[^;'`]*?\bfrom\s*'(\.[^']+)')/gm)) {
    out.push(path.resolve(path.dirname(file), (m[1] ?? m[2])!));
  }
  return out;
}

/** Every cycle a depth-first walk of `graph` closes, as 'a -> b -> a'. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (m: string): void => {
    state.set(m, 'open');
    stack.push(m);
    for (const d of graph.get(m) ?? []) {
      if (!graph.has(d)) continue;
      if (state.get(d) === 'open') cycles.push(stack.slice(stack.indexOf(d)).concat(d).join(' -> '));
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(m, 'done');
  };
  for (const m of graph.keys()) if (!state.has(m)) visit(m);
  return cycles;
}

describe('runtime imports of the build', () => {
  it('reads the imports of compiled JavaScript and finds a cycle among them', () => {
    const js = "import { a } from './a.js';\nimport {\n  b,\n  c,\n} from '../b.js';\nexport { d } from './d.js';\n" +
      "import './e.js';\nexport const f = './not-an-import.js';\n";
    assert.deepEqual(runtimeImports(js, '/x/m.js'), ['/x/a.js', '/b.js', '/x/d.js', '/x/e.js']);
    const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a', 'd']], ['d', []]]);
    assert.deepEqual(cyclesOf(graph), ['a -> b -> c -> a']);
  });

  it('form no cycle in dist/src (in a cycle, evaluation order decides what a module sees)', () => {
    const root = path.join(DIST, 'src');
    const modules = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))
      .map((f) => path.join(root, f));
    assert.ok(modules.length > 100, `only ${modules.length} modules under ${root}: build first (npx tsc)`);
    const graph = new Map(modules.map((m) => [path.relative(root, m), runtimeImports(fs.readFileSync(m, 'utf8'), m)
      .map((d) => path.relative(root, d))]));
    assert.deepEqual(cyclesOf(graph), []);
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

  it('ch_ucx: put, get, atomics of 4 and 8 bytes (add, and, or, xor, swap, compare-and-swap) and flush, by device operations: no mapping, no node memory', () => {
    const m = byName('ch_ucx').memory!;
    assert.ok(hasFlags(m, RMA_PUT | RMA_GET | RMA_ATOMICS | RMA_FLUSH));
    assert.equal(m.flags & (MEM_LOAD_STORE | MEM_CPU_ATOMICS | MEM_EXPORTED), 0);
    assert.equal(m.atomicWidths, WIDTH_4 | WIDTH_8);
    assert.equal(m.atomicOps, ATOMIC_ADD | ATOMIC_AND | ATOMIC_OR | ATOMIC_XOR | ATOMIC_SWAP | ATOMIC_CSWAP);
    assert.equal(byName('ch_ucx').nodeMemory, undefined);
  });

  it('self: our own memory, loads, stores and CPU atomics', () => {
    const m = byName('self').memory!;
    assert.ok(hasFlags(m, MEM_LOAD_STORE | MEM_CPU_ATOMICS));
    assert.equal(m.atomicOps, ALL_ATOMICS);
  });
});
