import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import '../../../src/config-all.js';
import { declaredTunables } from '../../../src/common/config.js';
import { COLL_ALGORITHMS } from '../../../src/mpir/coll/algorithm-counts.js';
import { ErrorClass } from '../../../src/mpir/error-classes.js';
import { MPIException } from '../../../src/mpir/exception.js';
import { oscCounters } from '../../../src/osc/index.js';
import { decodeStats, encodeStats, STATS_PIECE } from '../../../src/mpir/tools/stats-wire.js';
import { T } from '../../../src/mpir/tools/tools.js';
import { collectStats, formatStatsJson, formatStatsTable } from '../../../bin/launcher/stats.js';

/** MPI.T without MPI.Init: control variables, and the osc counters (process-wide, no World needed). */
function throwsClass(fn: () => unknown, errorClass: number, message: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof MPIException && e.error_class === errorClass && message.test(e.message),
    `expected class ${errorClass} matching ${message}`);
}

describe('MPI.T registry', () => {
  it('refuses every call before Init_thread, and after the last Finalize', () => {
    throwsClass(() => T.cvar_get_num(), ErrorClass.ERR_T_NOT_INITIALIZED, /MPI\.T\.cvar_get_num: .*not initialized/);
    T.Init_thread();
    T.Init_thread();
    T.Finalize();
    assert.ok(T.pvar_get_num() > 0, 'still initialized after one of two Finalize calls');
    T.Finalize();
    throwsClass(() => T.pvar_get_num(), ErrorClass.ERR_T_NOT_INITIALIZED, /not initialized/);
    throwsClass(() => T.Finalize(), ErrorClass.ERR_T_NOT_INITIALIZED, /MPI\.T\.Finalize/);
  });

  it('has a control variable per declared TSMPI_* variable, with default, range, meaning and source', () => {
    T.Init_thread();
    try {
      const names = [...Array(T.cvar_get_num()).keys()].map((i) => T.cvar_get_info(i).name);
      assert.deepEqual(names, declaredTunables().map((t) => t.name));
      const i = T.cvar_get_index('TSMPI_EAGER_MAX');
      const info = T.cvar_get_info(i);
      assert.equal(info.default, '131072');
      assert.equal(info.category, 'ch_shmem');
      assert.equal(info.scope, T.SCOPE_READONLY);
      assert.match(info.description, /eager/i);
      const h = T.cvar_handle_alloc(i);
      const saved = process.env.TSMPI_EAGER_MAX;
      try {
        delete process.env.TSMPI_EAGER_MAX;
        assert.equal(T.cvar_read(h), 131072);
        assert.equal(T.cvar_get_info(i).source, 'default');
        process.env.TSMPI_EAGER_MAX = '4k';
        assert.equal(T.cvar_read(h), 4096);
        assert.equal(T.cvar_get_info(i).source, 'environment');
        process.env.TSMPI_EAGER_MAX = 'lots';
        throwsClass(() => T.cvar_read(h), ErrorClass.ERR_ARG, /MPI\.T\.cvar_read: TSMPI_EAGER_MAX="lots"/);
      } finally {
        if (saved === undefined) delete process.env.TSMPI_EAGER_MAX;
        else process.env.TSMPI_EAGER_MAX = saved;
      }
      const b = T.cvar_handle_alloc(T.cvar_get_index('TSMPI_DIRECT_PACK'));
      assert.equal(T.cvar_read(b), 1, 'a boolean reads 1');
      throwsClass(() => T.cvar_write(b, 0), ErrorClass.ERR_T_CVAR_SET_NEVER, /TSMPI_DIRECT_PACK cannot be set/);
      T.cvar_handle_free(b);
      throwsClass(() => T.cvar_read(b), ErrorClass.ERR_T_INVALID_HANDLE, /freed/);
      throwsClass(() => T.cvar_get_index('TSMPI_NOPE'), ErrorClass.ERR_T_INVALID_NAME, /TSMPI_NOPE/);
      throwsClass(() => T.cvar_get_info(1.5), ErrorClass.ERR_T_INVALID_INDEX, /index 1\.5/);
    } finally {
      T.Finalize();
    }
  });

  it('names every performance variable once, puts each in one category, and lists every collective algorithm', () => {
    T.Init_thread();
    try {
      const n = T.pvar_get_num();
      const names = [...Array(n).keys()].map((i) => T.pvar_get_info(i).name);
      assert.equal(new Set(names).size, n);
      for (const name of ['mpid_eager_sends', 'mpid_rndv_bytes', 'ch_sci_crc_errors', 'ch_sci_ring_retries', 'ch_sci_cache_hits',
        'osc_lock_migrations', 'ch_shmem_eager_sends', 'ch_ucx_rndv_bytes', 'coll_allreduce_rabenseifner']) assert.ok(names.includes(name), name);
      const inCategories = [...Array(T.category_get_num()).keys()].flatMap((c) => T.category_get_pvars(c)).sort((a, b) => a - b);
      assert.deepEqual(inCategories, [...Array(n).keys()]);
      const mpid = T.category_get_index('mpid');
      assert.ok(T.category_get_pvars(mpid).includes(T.pvar_get_index('mpid_eager_sends', T.PVAR_CLASS_COUNTER)));
      assert.ok(T.category_get_cvars(mpid).includes(T.cvar_get_index('TSMPI_SPIN_POLLS')));
      assert.equal(T.category_get_info(mpid).numCategories, 0);
      for (const t of declaredTunables().filter((x) => /^TSMPI_COLL_[A-Z_]+$/.test(x.name) && x.kind === 'choice')) {
        const coll = t.name.slice('TSMPI_COLL_'.length).toLowerCase() as keyof typeof COLL_ALGORITHMS;
        for (const choice of t.rangeText.split(' | ').filter((c) => c !== 'auto')) {
          assert.ok((COLL_ALGORITHMS[coll] as readonly string[]).includes(choice), `${coll}: ${choice}`);
        }
      }
    } finally {
      T.Finalize();
    }
  });

  it('session handles: a counter reads its gain while started; stop freezes, reset zeroes, write sets; sessions are apart', () => {
    T.Init_thread();
    try {
      const i = T.pvar_get_index('osc_lock_migrations', T.PVAR_CLASS_COUNTER);
      assert.deepEqual([T.pvar_get_info(i).continuous, T.pvar_get_info(i).readonly], [false, false]);
      const a = T.pvar_session_create();
      const b = T.pvar_session_create();
      const ha = T.pvar_handle_alloc(a, i);
      const hb = T.pvar_handle_alloc(b, i);
      oscCounters.lockMigrations += 5;
      assert.equal(T.pvar_read(a, ha), 0, 'a handle starts stopped');
      T.pvar_start(a, ha);
      oscCounters.lockMigrations += 3;
      T.pvar_start(b, T.PVAR_ALL_HANDLES);
      oscCounters.lockMigrations += 2;
      assert.equal(T.pvar_read(a, ha), 5);
      assert.equal(T.pvar_read(b, hb), 2);
      T.pvar_stop(a, ha);
      oscCounters.lockMigrations += 4;
      assert.equal(T.pvar_read(a, ha), 5, 'stopped');
      assert.equal(T.pvar_read(b, hb), 6);
      T.pvar_reset(b, hb);
      assert.equal(T.pvar_read(b, hb), 0);
      oscCounters.lockMigrations += 1;
      assert.equal(T.pvar_readreset(b, hb), 1);
      T.pvar_write(a, ha, 40);
      T.pvar_start(a, ha);
      oscCounters.lockMigrations += 2;
      assert.equal(T.pvar_read(a, ha), 42);
      throwsClass(() => T.pvar_read(b, ha), ErrorClass.ERR_T_INVALID_HANDLE, /another session/);
      T.pvar_handle_free(a, ha);
      throwsClass(() => T.pvar_read(a, ha), ErrorClass.ERR_T_INVALID_HANDLE, /freed/);
      T.pvar_session_free(b);
      throwsClass(() => T.pvar_read(b, hb), ErrorClass.ERR_T_INVALID_SESSION, /freed/);
      throwsClass(() => T.pvar_start(a, {} as never), ErrorClass.ERR_T_INVALID_HANDLE, /not a performance-variable handle/);
      const level = T.pvar_get_index('mpid_unexpected_queue_length', T.PVAR_CLASS_LEVEL);
      const hl = T.pvar_handle_alloc(a, level);
      assert.equal(T.pvar_read(a, hl), 0, 'no MPI.Init: the engine\'s variables read 0');
      throwsClass(() => T.pvar_stop(a, hl), ErrorClass.ERR_T_PVAR_NO_STARTSTOP, /continuous/);
      throwsClass(() => T.pvar_write(a, hl, 1), ErrorClass.ERR_T_PVAR_NO_WRITE, /cannot be written/);
      T.pvar_start(a, T.PVAR_ALL_HANDLES);
      T.pvar_reset(a, T.PVAR_ALL_HANDLES);
    } finally {
      T.Finalize();
    }
  });
});

describe('--stats wire and table', () => {
  const rows = Array.from({ length: 60 }, (_, i) => ({ name: `layer_counter_${i}`, varClass: i === 3 ? 'highwatermark' : 'counter', unit: 'messages', value: i * 1000 + 7 }));

  it('cuts a rank\'s report into PMI values without spaces and reads it back', () => {
    const pairs = encodeStats(2, rows);
    assert.ok(pairs.length > 3);
    for (const [key, value] of pairs) assert.ok(key.length <= 64 && value.length <= STATS_PIECE && !/\s/.test(value), key);
    const kvs = new Map(pairs);
    assert.deepEqual(decodeStats(2, (k) => kvs.get(k)), rows);
    kvs.delete('tsmpi-stats-2-1');
    assert.equal(decodeStats(2, (k) => kvs.get(k)), null, 'a missing piece');
    assert.equal(decodeStats(1, (k) => kvs.get(k)), null, 'a rank that did not report');
  });

  it('sums counters, takes the largest high-water mark, marks missing ranks, leaves zero rows out of the table', () => {
    const kvs = new Map([...encodeStats(0, rows), ...encodeStats(2, rows.map((r) => ({ ...r, value: r.value + 1 })))]);
    const { reported, stats } = collectStats(3, (k) => kvs.get(k));
    assert.deepEqual(reported, [0, 2]);
    const c5 = stats.find((s) => s.name === 'layer_counter_5')!;
    assert.deepEqual(c5.perRank, [5007, null, 5008]);
    assert.equal(c5.total, 10015);
    assert.equal(stats.find((s) => s.name === 'layer_counter_3')!.total, 3008);
    const table = formatStatsTable(3, reported, stats);
    assert.match(table, /no report from rank 1/);
    assert.match(table, /^layer_counter_5\s+messages\s+5007\s+-\s+5008\s+10015$/m);
    assert.match(table, /^layer_counter_3\s+messages \(max\)\s+3007\s+-\s+3008\s+3008$/m);
    const json = JSON.parse(formatStatsJson(3, reported, stats)) as { variables: { name: string; ranks: (number | null)[] }[] };
    assert.equal(json.variables.length, rows.length);
  });
});
