// startAsDoubles: a byte counter that passes 2^31 does not make V8 throw away the code compiled
// against its object. A child process under --trace-deopt adds to a counter in a hot loop until
// it passes 2^31; the control, a plain literal, must be deoptimized there (V8's "overflow" and
// "wrong map"), or this test could not tell the two apart.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { DIST } from '../../helpers.js';

function deoptsPast2to31(kind: 'doubles' | 'plain'): string[] {
  const program = `
const { startAsDoubles } = await import(${JSON.stringify(path.join(DIST, 'src', 'common', 'double-fields.js'))});
const c = ${kind === 'doubles' ? "startAsDoubles({ sends: 0, bytes: 0 }, 'bytes')" : '{ sends: 0, bytes: 0 }'};
function add(o, n) { o.sends++; o.bytes += n; }
for (let i = 0; i < 1e6; i++) add(c, 1000);
console.log('MARK past 2^31 from here');
for (let i = 0; i < 2e6; i++) add(c, 1000);
console.log('SUM', c.bytes);
`;
  const r = spawnSync(process.execPath, ['--trace-deopt', '--input-type=module', '-e', program], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^SUM 3000000000$/m);
  const after = r.stdout.slice(r.stdout.indexOf('MARK'));
  return [...after.matchAll(/bailout \(kind: [^,]+, reason: ([^)]+)\)/g)].map((m) => m[1]!);
}

describe('startAsDoubles', () => {
  test('a counter past 2^31 throws no compiled code away; a plain literal does', () => {
    const doubles = deoptsPast2to31('doubles').filter((r) => /overflow|wrong map/.test(r));
    assert.deepEqual(doubles, [], 'no overflow or map deopt with the counter started as a double');
    const plain = deoptsPast2to31('plain').filter((r) => /overflow|wrong map/.test(r));
    assert.ok(plain.length > 0, 'control: the plain counter was deoptimized when it passed 2^31');
  });
});
