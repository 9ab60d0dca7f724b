// Every call of mpi4py's MPI module (test/docs/mpi4py-names.json: the names of mpi4py 4's
// MPI.pyi, without the handle and Fortran conversions and Python's buffer and pickle helpers)
// exists on tsmpi's API, so none is an undefined property. The calls tsmpi does not implement
// (src/mpir/unsupported.ts registers each) raise MPI.Exception with ERR_UNSUPPORTED_OPERATION
// and are named in the README's "Missing" section.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MPI } from '../../src/index.js';
import { unsupportedCalls } from '../../src/mpir/unsupported.js';
import { ROOT } from '../helpers.js';

const names = JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'docs', 'mpi4py-names.json'), 'utf8')) as Record<string, string[]>;
const api = MPI as unknown as Record<string, unknown>;

/** A class of the API by mpi4py's name (its Topocomm methods are on each topology communicator). */
function classOf(name: string): { [key: string]: unknown; prototype: object } {
  return (name === 'Topocomm' ? MPI.Cartcomm : api[name]) as never;
}

function hasMember(cls: { prototype: object } & Record<string, unknown>, member: string): boolean {
  if (typeof cls[member] === 'function') return true;
  for (let p: object | null = cls.prototype; p !== null; p = Object.getPrototypeOf(p)) {
    if (Object.getOwnPropertyDescriptor(p, member) !== undefined) return true;
  }
  return false;
}

/** The function behind a registered name: 'MPI.X', 'MPI.File.Open' (static), 'Comm.Spawn' (method or static). */
function resolve(call: string): unknown {
  const parts = call.split('.');
  if (parts[0] === 'MPI' && parts.length === 2) return api[parts[1]!];
  const [cls, member] = parts[0] === 'MPI' ? [parts[1]!, parts[2]!] : [parts[0]!, parts[1]!];
  const c = api[cls] as { prototype: Record<string, unknown> } & Record<string, unknown>;
  return c[member] ?? c.prototype[member];
}

function missingSection(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('### Missing');
  assert.ok(start >= 0, 'README.md has a "### Missing" section');
  const end = readme.indexOf('\n## ', start);
  return readme.slice(start, end < 0 ? undefined : end);
}

describe("mpi4py's names", () => {
  it('every call of mpi4py exists on the API', () => {
    const absent: string[] = [];
    for (const [owner, list] of Object.entries(names)) {
      for (const member of list) {
        const ok = owner === 'MPI' ? typeof api[member] === 'function' : hasMember(classOf(owner), member);
        if (!ok) absent.push(`${owner}.${member}`);
      }
    }
    assert.deepEqual(absent, [], `undefined on tsmpi's API: ${absent.join(', ')}`);
    assert.ok(Object.values(names).flat().length > 400, 'the name list is whole');
  });

  it('each unimplemented call raises ERR_UNSUPPORTED_OPERATION, naming itself, and the README lists it', () => {
    const missing = missingSection();
    // And the other way: each call the list names (before "Other gaps") raises through the registry.
    const bullets = missing.slice(0, missing.indexOf('Other gaps')).split('\n- ').slice(1).join('\n');
    const listedCalls = [...bullets.matchAll(/`((?:MPI|Comm|Session)\.[A-Za-z_.]+)`/g)].map((m) => m[1]!);
    assert.ok(listedCalls.length > 0, 'the "Missing" list names calls');
    for (const call of listedCalls) assert.ok(unsupportedCalls.has(call), `${call} is listed as missing but raises nothing`);
    for (const call of unsupportedCalls.keys()) {
      const fn = resolve(call);
      assert.equal(typeof fn, 'function', `${call} is on the API`);
      assert.throws(() => (fn as () => unknown)(), (e: unknown) => {
        assert.ok(e instanceof MPI.Exception, `${call} throws MPI.Exception`);
        assert.equal(e.Get_error_class(), MPI.ERR_UNSUPPORTED_OPERATION, call);
        assert.match(e.message, new RegExp(`^${call.replace(/\./g, '\\.')}: .* \\(README: Missing\\)$`));
        return true;
      });
      const listed = missing.includes(`\`${call}\``) || (call.startsWith('File.') && missing.includes('`MPI.File`'));
      assert.ok(listed, `README's "Missing" names \`${call}\``);
    }
  });
});
