// shmCreate / shmOpen / shmPrepare / shmUnlink / shmPlainView: segments (whole or sparse) shared between processes, their mode, argument
// checks, and the failures a caller must be able to tell apart (EEXIST, ENOSPC, ENOENT).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, test } from 'node:test';

import { addon } from '../../../src/native/addon.js';
import { runChild, uniqueName } from './helpers.js';

const PAGE = 4096;

function segmentPath(name: string): string {
  return `/dev/shm/${name}`;
}

describe('shm', { timeout: 60_000 }, () => {
  test('a segment created here is written by another process and seen here', { timeout: 20_000 }, async () => {
    const name = uniqueName('shm-share');
    try {
      const sab = addon.shmCreate(name, 3 * PAGE);
      assert.ok(sab instanceof SharedArrayBuffer);
      assert.equal(sab.byteLength, 3 * PAGE);
      const bytes = new Uint8Array(sab);
      assert.ok(bytes.every((b) => b === 0), 'a new segment is zero-filled');
      bytes[0] = 0x5a; // the child checks it sees this

      const child = await runChild(
        `const sab = addon.shmOpen(${JSON.stringify(name)});
         const bytes = new Uint8Array(sab);
         if (bytes[0] !== 0x5a) throw new Error('child sees ' + bytes[0]);
         for (let i = 0; i < 1000; i++) bytes[${2 * PAGE} + i] = (i * 7 + 3) & 0xff;
         console.log(sab.byteLength);`,
        15_000,
      );
      assert.equal(child.status, 0, child.stderr);
      assert.equal(child.stdout.trim(), String(3 * PAGE), 'shmOpen maps the whole size');
      for (let i = 0; i < 1000; i++) assert.equal(bytes[2 * PAGE + i], (i * 7 + 3) & 0xff, `byte ${i}`);
    } finally {
      addon.shmUnlink(name);
    }
  });

  test('segments are mode 0600 whatever the umask', { timeout: 5_000 }, () => {
    const name = uniqueName('shm-mode');
    const previous = process.umask(0o277); // without fchmod the file would be 0400
    try {
      addon.shmCreate(name, PAGE);
      assert.equal(fs.statSync(segmentPath(name)).mode & 0o777, 0o600);
    } finally {
      process.umask(previous);
      addon.shmUnlink(name);
    }
  });

  test('bad names throw EINVAL naming the name', { timeout: 5_000 }, () => {
    for (const bad of ['', 'a/b', '/lead', '.', '..', 'has space', 'x'.repeat(201), 'ünï']) {
      assert.throws(
        () => addon.shmCreate(bad, PAGE),
        (e: NodeJS.ErrnoException) => e.code === 'EINVAL' && e instanceof RangeError &&
          e.message.startsWith('shmCreate: name ') && e.message.includes(`'${bad}'`),
        `name ${JSON.stringify(bad)}`,
      );
      assert.throws(() => addon.shmOpen(bad), { code: 'EINVAL' });
      assert.throws(() => addon.shmUnlink(bad), { code: 'EINVAL' });
    }
    assert.throws(() => addon.shmCreate(7 as unknown as string, PAGE), (e: NodeJS.ErrnoException) =>
      e instanceof TypeError && e.code === 'EINVAL' && /name must be a string/.test(e.message));
    const longest = uniqueName('n').padEnd(200, 'x');
    try {
      assert.equal(addon.shmCreate(longest, PAGE).byteLength, PAGE, '200 characters are allowed');
    } finally {
      addon.shmUnlink(longest);
    }
  });

  test('bad sizes throw EINVAL and create nothing', { timeout: 5_000 }, () => {
    const name = uniqueName('shm-size');
    try {
      for (const bad of [0, -1, 1.5, 2 ** 40 + 1, NaN, Infinity]) {
        assert.throws(
          () => addon.shmCreate(name, bad),
          (e: NodeJS.ErrnoException) => e.code === 'EINVAL' && /size must be an integer in \[1, 1099511627776\]/.test(e.message),
          `size ${bad}`,
        );
      }
      assert.throws(() => addon.shmCreate(name, '4096' as unknown as number), TypeError);
      assert.equal(fs.existsSync(segmentPath(name)), false);
    } finally {
      addon.shmUnlink(name);
    }
  });

  test('creating an existing segment throws EEXIST and leaves it intact', { timeout: 5_000 }, () => {
    const name = uniqueName('shm-exist');
    try {
      new Uint8Array(addon.shmCreate(name, PAGE))[10] = 42;
      assert.throws(
        () => addon.shmCreate(name, 2 * PAGE),
        (e: NodeJS.ErrnoException) => e.code === 'EEXIST' && e.syscall === 'shm_open' &&
          e.message.includes(`'${name}' already exists`),
      );
      const again = addon.shmOpen(name);
      assert.equal(again.byteLength, PAGE);
      assert.equal(new Uint8Array(again)[10], 42);
    } finally {
      addon.shmUnlink(name);
    }
  });

  test('a segment larger than the free space of /dev/shm throws ENOSPC and leaves no file', { timeout: 20_000 }, () => {
    const name = uniqueName('shm-nospc');
    const fsInfo = fs.statfsSync('/dev/shm');
    const free = fsInfo.bavail * fsInfo.bsize;
    const total = fsInfo.blocks * fsInfo.bsize;
    // Past the total size too, so tmpfs refuses up front instead of filling memory first.
    const size = Math.ceil((Math.max(free, total) + (1 << 20)) / PAGE) * PAGE;
    assert.ok(size <= 2 ** 40, `this test needs /dev/shm smaller than 1 TiB (free ${free})`);
    try {
      assert.throws(
        () => addon.shmCreate(name, size),
        (e: NodeJS.ErrnoException) => e.code === 'ENOSPC' && e.syscall === 'posix_fallocate' &&
          /^shmCreate: \/dev\/shm has \d+ bytes free, segment '.*' needs \d+$/.test(e.message) &&
          e.message.endsWith(`segment '${name}' needs ${size}`),
      );
      assert.equal(fs.existsSync(segmentPath(name)), false, 'the failed segment was unlinked');
    } finally {
      addon.shmUnlink(name);
    }
  });

  test('shmOpen of a missing segment throws ENOENT; shmUnlink says whether it removed one', { timeout: 5_000 }, () => {
    const name = uniqueName('shm-unlink');
    assert.throws(() => addon.shmOpen(name), (e: NodeJS.ErrnoException) =>
      e.code === 'ENOENT' && e.message === `shmOpen: segment '${name}' does not exist in /dev/shm`);
    try {
      const sab = addon.shmCreate(name, PAGE);
      assert.equal(addon.shmUnlink(name), true);
      assert.equal(fs.existsSync(segmentPath(name)), false);
      new Uint8Array(sab)[0] = 1; // the mapping outlives the name
      assert.equal(addon.shmUnlink(name), false);
      assert.throws(() => addon.shmOpen(name), { code: 'ENOENT' });
    } finally {
      addon.shmUnlink(name);
    }
  });

  test('an empty object in /dev/shm is refused by shmOpen', { timeout: 5_000 }, () => {
    const name = uniqueName('shm-empty');
    try {
      fs.writeFileSync(segmentPath(name), '', { mode: 0o600 });
      assert.throws(() => addon.shmOpen(name), (e: NodeJS.ErrnoException) =>
        e.code === 'EINVAL' && /is empty \(size 0\)/.test(e.message));
    } finally {
      addon.shmUnlink(name);
    }
  });

  test('the mapping is unmapped when its buffer is garbage-collected', { timeout: 20_000 }, async () => {
    const name = uniqueName('shm-gc');
    try {
      const child = await runChild(
        `import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
         const mapped = () => fs.readFileSync('/proc/self/maps', 'utf8').includes('/dev/shm/${name}');
         let sab = addon.shmCreate(${JSON.stringify(name)}, 1 << 20);
         new Uint8Array(sab)[0] = 1;
         console.log(mapped());
         sab = null;
         for (let i = 0; i < 200 && mapped(); i++) {
           globalThis.gc();
           await new Promise((r) => setTimeout(r, 10));
         }
         console.log(mapped());`,
        15_000,
        ['--expose-gc'],
      );
      assert.equal(child.status, 0, child.stderr);
      assert.deepEqual(child.stdout.trim().split('\n'), ['true', 'false']);
    } finally {
      addon.shmUnlink(name);
    }
  });

  test('a plain view holds the segment\'s bytes, outlives the dropped SharedArrayBuffer, and lets the mapping go with it', { timeout: 20_000 }, async () => {
    const name = uniqueName('shm-plain');
    try {
      const child = await runChild(
        `import fs from 'node:fs';
         const mapped = () => fs.readFileSync('/proc/self/maps', 'utf8').includes('/dev/shm/${name}');
         const settle = async (done) => { for (let i = 0; i < 200 && !done(); i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 10)); } };
         let sab = addon.shmCreate(${JSON.stringify(name)}, 3 * 4096);
         let plain = addon.shmPlainView(sab);
         console.log(plain instanceof ArrayBuffer, plain instanceof SharedArrayBuffer, plain.byteLength);
         new Uint8Array(sab)[4097] = 0x3c;
         new Uint8Array(plain).set([7, 8, 9], 10000);
         console.log(new Uint8Array(plain)[4097], Array.from(new Uint8Array(sab, 10000, 3)).join(','));
         sab = null;
         await settle(() => false);
         console.log(mapped(), new Uint8Array(plain)[4097]);
         plain = null;
         await settle(() => !mapped());
         console.log(mapped());
         try { addon.shmPlainView(new ArrayBuffer(8).byteLength); } catch (e) { console.log(e.name, e.code); }`,
        15_000,
        ['--expose-gc'],
      );
      assert.equal(child.status, 0, child.stderr);
      assert.deepEqual(child.stdout.trim().split('\n'), ['true false 12288', `${0x3c} 7,8,9`, `true ${0x3c}`, 'false', 'TypeError EINVAL']);
    } finally {
      addon.shmUnlink(name);
    }
  });

  test('plain views of a large sparse segment do not count as the heap\'s external memory (no collection for it)', { timeout: 20_000 }, async () => {
    const name = uniqueName('shm-plain-gc');
    try {
      // Counted as external memory, 16 views of 1 GiB made V8 collect the whole heap again and again
      // (32 ranks' views of their segments: ~130 full collections in Init).
      const child = await runChild(
        `import { PerformanceObserver, constants } from 'node:perf_hooks';
         let major = 0;
         const observer = new PerformanceObserver((list) => {
           for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) major++;
         });
         observer.observe({ entryTypes: ['gc'] });
         const sab = addon.shmCreate(${JSON.stringify(name)}, 1 << 30, true);
         const views = [];
         const garbage = [];
         for (let i = 0; i < 16; i++) { views.push(addon.shmPlainView(sab)); for (let k = 0; k < 2000; k++) garbage.push({ k }); }
         await new Promise((r) => setTimeout(r, 100));
         observer.disconnect();
         console.log(major, views.every((v) => v.byteLength === 1 << 30));`,
        15_000,
      );
      assert.equal(child.status, 0, child.stderr);
      assert.equal(child.stdout.trim(), '0 true');
    } finally {
      addon.shmUnlink(name);
    }
  });

  test('a sparse segment costs memory only where it is prepared, and another process sees what is written there', { timeout: 20_000 }, async () => {
    const name = uniqueName('shm-sparse');
    const MiB = 1 << 20;
    const shmemKib = () => Number(/^RssShmem:\s+(\d+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1]);
    try {
      const before = shmemKib();
      const sab = addon.shmCreate(name, 256 * MiB, true);
      const bytes = new Uint8Array(sab);
      assert.ok(shmemKib() - before < 1024, `creating 256 MiB sparse mapped ${shmemKib() - before} KiB`);
      assert.ok(fs.statSync(segmentPath(name)).blocks * 512 < MiB, 'tmpfs holds no pages of it yet');
      addon.shmPrepare(sab, 3 * MiB + 5, 8 * MiB);
      const grown = shmemKib() - before;
      assert.ok(grown >= 8 * 1024 && grown < 10 * 1024, `preparing 8 MiB mapped ${grown} KiB`);
      bytes[3 * MiB + 5] = 0x6b;
      bytes[11 * MiB] = 0x6c;
      const child = await runChild(
        `const sab = addon.shmOpen(${JSON.stringify(name)}, true);
         const bytes = new Uint8Array(sab);
         console.log(sab.byteLength, bytes[${3 * MiB + 5}], bytes[${11 * MiB}], bytes[${200 * MiB}]);`,
        15_000,
      );
      assert.equal(child.status, 0, child.stderr);
      assert.equal(child.stdout.trim(), `${256 * MiB} ${0x6b} ${0x6c} 0`);
      assert.ok(fs.statSync(segmentPath(name)).blocks * 512 < 10 * MiB, 'the rest stayed a hole');
      assert.throws(() => addon.shmPrepare(sab, 255 * MiB, 2 * MiB), (e: NodeJS.ErrnoException) =>
        e.code === 'EINVAL' && e.message.includes('lies past the segment'));
    } finally {
      addon.shmUnlink(name);
    }
  });

  test('preparing more than /dev/shm can back throws ENOSPC, and the segment stays usable', { timeout: 20_000 }, (t) => {
    if (process.getuid?.() !== 0) return t.skip('needs root to mount a small tmpfs over /dev/shm in a mount namespace');
    const script = `
      const { addon } = await import(${JSON.stringify(new URL('../../../src/native/addon.js', import.meta.url).href)});
      const sab = addon.shmCreate('tsmpi-nospc-prepare', 64 << 20, true);
      addon.shmPrepare(sab, 0, 512 << 10);
      try { addon.shmPrepare(sab, 1 << 20, 4 << 20); console.log('no error'); }
      catch (e) { console.log(e.code, e.syscall, e.message); }
      new Uint8Array(sab)[100] = 1;
      console.log('usable', new Uint8Array(sab)[100]);`;
    const r = spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=1M tmpfs /dev/shm && exec "$0" --input-type=module -e "$1"',
      process.execPath, script], { encoding: 'utf8', timeout: 15_000 });
    assert.equal(r.status, 0, r.stderr);
    const [first, second] = r.stdout.trim().split('\n');
    assert.match(first!, /^ENOSPC madvise shmPrepare: \/dev\/shm cannot back 4194304 more bytes of shared memory .*free \/dev\/shm or run fewer ranks per node$/);
    assert.equal(second, 'usable 1');
  });
});
