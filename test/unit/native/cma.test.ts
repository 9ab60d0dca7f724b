// addressOf / cmaRead / cmaWrite / cmaReadv / cmaWritev / cmaProbe: single copy into and out of
// a buffer of another process, checked by that process; scatter/gather lists with odd lengths
// and more entries than IOV_MAX; the probe and the errors a fallback decision needs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { addon } from '../../../src/native/addon.js';
import { Child } from './helpers.js';

const REMOTE_BYTES = 8192;

/** byte i of the child's buffer before anything writes it */
function initial(i: number): number {
  return (i * 31 + 7) & 0xff;
}

interface Remote {
  pid: number;
  addr: number;
  len: number;
}

/**
 * A child holding a buffer (a small on-heap-sized view would do too: addressOf moves it
 * off-heap). It answers "dump" with the buffer in hex and "exit" by exiting.
 */
function startHolder(): Child {
  return new Child(
    `import readline from 'node:readline';
     const buf = new Uint8Array(${REMOTE_BYTES});
     for (let i = 0; i < buf.length; i++) buf[i] = (i * 31 + 7) & 0xff;
     console.log(JSON.stringify({ pid: process.pid, addr: addon.addressOf(buf), len: buf.length }));
     for await (const line of readline.createInterface({ input: process.stdin })) {
       if (line === 'dump') console.log(Buffer.from(buf.buffer, buf.byteOffset, buf.length).toString('hex'));
       if (line === 'exit') process.exit(0);
     }`,
    60_000,
  );
}

async function dump(holder: Child): Promise<Buffer> {
  holder.send('dump');
  return Buffer.from(await holder.line(), 'hex');
}

describe('cma', { timeout: 90_000 }, () => {
  let holder: Child;
  let remote: Remote;
  let expected: Buffer; // what the parent believes the child's buffer holds

  before(async () => {
    holder = startHolder();
    remote = await holder.json<Remote>();
    expected = Buffer.from(Array.from({ length: REMOTE_BYTES }, (_, i) => initial(i)));
  });

  after(() => holder.kill());

  test('cmaProbe says single copy works against a live child', { timeout: 5_000 }, () => {
    assert.deepEqual(addon.cmaProbe(remote.pid, remote.addr), { ok: true, errno: '' });
  });

  test('cmaRead copies the child buffer, whole and at odd offsets', { timeout: 10_000 }, () => {
    const whole = new Uint8Array(REMOTE_BYTES);
    assert.equal(addon.cmaRead(remote.pid, whole, remote.addr), REMOTE_BYTES);
    assert.deepEqual(Buffer.from(whole), expected);
    const backing = new Uint8Array(64);
    const part = new Uint8Array(backing.buffer, 3, 37); // byteOffset honoured on the local side
    assert.equal(addon.cmaRead(remote.pid, part, remote.addr + 1001), 37);
    assert.deepEqual(Buffer.from(part), expected.subarray(1001, 1038));
    assert.ok(backing.subarray(0, 3).every((b) => b === 0) && backing.subarray(40).every((b) => b === 0),
      'bytes outside the view are untouched');
    assert.equal(addon.cmaRead(remote.pid, new Uint8Array(0), remote.addr), 0);
  });

  test('cmaWrite lands in the child buffer, as the child sees it', { timeout: 10_000 }, async () => {
    const data = randomBytes(777);
    const view = new DataView(data.buffer, data.byteOffset, data.length);
    assert.equal(addon.cmaWrite(remote.pid, view, remote.addr + 333), 777);
    data.copy(expected, 333);
    assert.deepEqual(await dump(holder), expected);
  });

  test('cmaReadv gathers into odd-length local pieces from odd remote pieces', { timeout: 10_000 }, () => {
    const a = new Uint8Array(7);
    const b = new Uint8Array(13);
    const c = new Uint8Array(new SharedArrayBuffer(5), 2, 1);
    const localIov = new Float64Array([addon.addressOf(a), 7, addon.addressOf(b), 13, 0, 0, addon.addressOf(c), 1]);
    const remoteIov = new Float64Array([remote.addr + 5, 5, remote.addr + 4001, 16, 0, 0]);
    assert.equal(addon.cmaReadv(remote.pid, localIov, 4, remoteIov, 2), 21);
    const stream = Buffer.concat([expected.subarray(5, 10), expected.subarray(4001, 4017)]);
    assert.deepEqual(Buffer.concat([a, b, c]), stream);
  });

  test('cmaWritev scatters odd local pieces into odd remote pieces; the child sees them', { timeout: 10_000 }, async () => {
    const src = randomBytes(29);
    const localIov = new Float64Array([
      addon.addressOf(src), 3, addon.addressOf(src) + 3, 11, addon.addressOf(src) + 14, 15,
    ]);
    const remoteIov = new Float64Array([remote.addr + 6001, 9, remote.addr + 7, 1, remote.addr + 100, 19]);
    assert.equal(addon.cmaWritev(remote.pid, localIov, 3, remoteIov, 3), 29);
    src.copy(expected, 6001, 0, 9);
    src.copy(expected, 7, 9, 10);
    src.copy(expected, 100, 10, 29);
    assert.deepEqual(await dump(holder), expected);
  });

  test('lists longer than IOV_MAX are split over several calls', { timeout: 10_000 }, async () => {
    const n = 2500; // IOV_MAX is 1024
    const src = randomBytes(n);
    const localIov = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      localIov[2 * i] = addon.addressOf(src) + i;
      localIov[2 * i + 1] = 1;
    }
    const remoteIov = new Float64Array([remote.addr + 3000, n]);
    assert.equal(addon.cmaWritev(remote.pid, localIov, n, remoteIov, 1), n);
    src.copy(expected, 3000);
    assert.deepEqual(await dump(holder), expected);

    const back = new Uint8Array(n);
    const scatter = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      scatter[2 * i] = remote.addr + 3000 + (n - 1 - i); // remote pieces in reverse order
      scatter[2 * i + 1] = 1;
    }
    assert.equal(addon.cmaReadv(remote.pid, new Float64Array([addon.addressOf(back), n]), 1, scatter, n), n);
    assert.deepEqual(Buffer.from(back), Buffer.from(src).reverse());
  });

  test('unequal list totals move the smaller total', { timeout: 5_000 }, () => {
    const local = new Uint8Array(10);
    const moved = addon.cmaReadv(remote.pid, new Float64Array([addon.addressOf(local), 10]), 1,
      new Float64Array([remote.addr, 4]), 1);
    assert.equal(moved, 4);
    assert.deepEqual(Buffer.from(local.subarray(0, 4)), expected.subarray(0, 4));
  });

  test('addressOf: stable, byteOffset included, every buffer kind', { timeout: 5_000 }, () => {
    const small = new Uint8Array(16); // small typed arrays start on the V8 heap
    const first = addon.addressOf(small);
    assert.ok(Number.isSafeInteger(first) && first > 0 && first < 2 ** 47);
    globalThis.gc?.();
    assert.equal(addon.addressOf(small), first, 'the storage does not move once addressed');
    assert.equal(addon.addressOf(small.subarray(5)), first + 5);
    assert.equal(addon.addressOf(small.buffer), first);
    assert.equal(addon.addressOf(new DataView(small.buffer, 9)), first + 9);
    const sab = new SharedArrayBuffer(32);
    assert.equal(addon.addressOf(new Int32Array(sab, 8)), addon.addressOf(sab) + 8);
    assert.throws(() => addon.addressOf({} as ArrayBuffer), (e: NodeJS.ErrnoException) =>
      e instanceof TypeError && e.code === 'EINVAL');
  });

  test('errors: a dead process is ESRCH, an unmapped address EFAULT, bad lists EINVAL', { timeout: 10_000 }, () => {
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout.trim());
    assert.deepEqual(addon.cmaProbe(deadPid, remote.addr), { ok: false, errno: 'ESRCH' });
    assert.throws(() => addon.cmaRead(deadPid, new Uint8Array(8), remote.addr), (e: NodeJS.ErrnoException) =>
      e.code === 'ESRCH' && e.syscall === 'process_vm_readv' && e.message.includes(`from pid ${deadPid}`));

    assert.deepEqual(addon.cmaProbe(remote.pid, 4096), { ok: false, errno: 'EFAULT' });
    assert.throws(() => addon.cmaWrite(remote.pid, new Uint8Array(8), 4096), (e: NodeJS.ErrnoException) =>
      e.code === 'EFAULT' && e.message.includes('at 0x1000 (8 bytes) failed after 0 bytes'));

    const ok = new Float64Array([addon.addressOf(new Uint8Array(4)), 4]);
    assert.throws(() => addon.cmaReadv(remote.pid, ok, 2, ok, 1), RangeError, 'count beyond the array');
    assert.throws(() => addon.cmaReadv(remote.pid, new Float64Array([1.5, 4]), 1, ok, 1), RangeError);
    assert.throws(() => addon.cmaReadv(remote.pid, new Float64Array([-8, 4]), 1, ok, 1), RangeError);
    assert.throws(() => addon.cmaReadv(remote.pid, [0, 4] as unknown as Float64Array, 1, ok, 1), TypeError);
    assert.throws(() => addon.cmaRead(0, new Uint8Array(1), remote.addr), RangeError);
    assert.throws(() => addon.cmaRead(remote.pid, new Uint8Array(1), -1), RangeError);
  });
});
