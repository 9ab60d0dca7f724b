import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatLine, LineSplitter, parseLine, PMI_MAXLINE } from '../../../src/pmi/index.js';

describe('PMI-1 wire format', () => {
  it('parses fields in any order (Slurm puts rc= first, hydra last)', () => {
    const slurm = parseLine('cmd=get_result rc=0 value=abc\n');
    const hydra = parseLine('cmd=get_result value=abc rc=0\n');
    for (const m of [slurm, hydra]) {
      assert.equal(m.cmd, 'get_result');
      assert.equal(m.fields.get('rc'), '0');
      assert.equal(m.fields.get('value'), 'abc');
      assert.equal(m.fields.has('cmd'), false);
    }
  });

  it('keeps free text with spaces whole and tolerates a missing value', () => {
    const m = parseLine('cmd=abort exitcode=7 message=rank 3 gave up early\n');
    assert.equal(m.fields.get('message'), 'rank 3 gave up early');
    assert.equal(m.fields.get('exitcode'), '7');
    const missing = parseLine('cmd=get_result rc=1\n');
    assert.equal(missing.fields.get('value'), undefined);
  });

  it('reads mcmd= like cmd= and rejects lines without a command', () => {
    assert.equal(parseLine('mcmd=spawn nprocs=2\n').cmd, 'spawn');
    assert.throws(() => parseLine('rc=0 value=1\n'), /no cmd=/);
    assert.throws(() => parseLine('garbage\n'), /does not start with key=value/);
  });

  it('formats a command line and round-trips it', () => {
    const line = formatLine('put', { kvsname: 'kvs_1', key: 'k', value: 'v1' });
    assert.equal(line, 'cmd=put kvsname=kvs_1 key=k value=v1\n');
    const back = parseLine(line);
    assert.equal(back.cmd, 'put');
    assert.deepEqual([...back.fields], [['kvsname', 'kvs_1'], ['key', 'k'], ['value', 'v1']]);
  });

  it('refuses keys with spaces and lines over the 1024-byte limit', () => {
    assert.throws(() => formatLine('put', { 'a b': 1 }), /has spaces/);
    assert.throws(() => formatLine('put', { value: 'x'.repeat(PMI_MAXLINE) }), /limit is 1024/);
    assert.throws(() => formatLine('put', { value: 'a\nb' }), /newline/);
  });

  it('splits a stream into whole lines across chunk boundaries', () => {
    const s = new LineSplitter();
    assert.deepEqual(s.push('cmd=a x=1\ncmd=b'), ['cmd=a x=1\n']);
    assert.deepEqual(s.push(' y=2'), []);
    assert.deepEqual(s.push('\ncmd=c\ncmd=d\n'), ['cmd=b y=2\n', 'cmd=c\n', 'cmd=d\n']);
    assert.equal(s.rest, '');
  });
});
