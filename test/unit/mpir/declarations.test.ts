import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DIST, ROOT, run, tsmpiexec } from '../../helpers.js';

/**
 * The published declarations, as a TypeScript user meets them: the consumer programs of
 * test/package/fixtures are compiled in a temporary app whose node_modules/tsmpi links to this
 * project (package.json "exports" → dist/src/index.d.ts), with their own strict tsconfig
 * (skipLibCheck false, so every declaration file they reach is checked too). ok-*.ts must
 * compile without a diagnostic and ok-typed runs with two ranks; bad-*.ts must fail with the
 * code their first line names (`// expect-error: TS2345`). Then every .d.ts under dist/src must
 * compile on its own, and the public entry must reach no internal layer.
 */

const FIXTURES = path.join(ROOT, 'test', 'package', 'fixtures');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** Layers below the public API: the declarations of `import ... from 'tsmpi'` must not reach them. */
const INTERNAL_LAYERS = ['mpid', 'osc', 'ch_shmem', 'ch_sci', 'native', 'sisci', 'pmi', 'common'];

interface Diagnostic {
  readonly file: string;
  readonly code: string;
  readonly text: string;
}

/** tsc --pretty false prints `file(line,col): error TS1234: message` (continuation lines indented). */
function diagnostics(stdout: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(.+?)\(\d+,\d+\): error (TS\d+): /.exec(line);
    if (m) out.push({ file: path.resolve(app, m[1]!), code: m[2]!, text: line });
  }
  return out;
}

let app = '';
let fixtures: string[] = [];
let listed: string[] = [];
let found: Diagnostic[] = [];
let tscOutput = '';

describe('published declarations (test/package/fixtures)', () => {
  before(async () => {
    assert.ok(fs.existsSync(path.join(DIST, 'src', 'index.d.ts')), 'dist/src/index.d.ts is missing: build first (npx tsc)');
    app = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-declarations-'));
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    fs.mkdirSync(path.join(app, 'node_modules'));
    fs.symlinkSync(ROOT, path.join(app, 'node_modules', 'tsmpi'), 'dir');
    fs.symlinkSync(path.join(ROOT, 'node_modules', '@types'), path.join(app, 'node_modules', '@types'), 'dir');
    fixtures = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.ts')).sort();
    for (const f of [...fixtures, 'tsconfig.json']) fs.copyFileSync(path.join(FIXTURES, f), path.join(app, f));
    // The fixtures' own compiler options, over every fixture at once (each diagnostic names its file).
    fs.writeFileSync(path.join(app, 'tsconfig.check.json'), JSON.stringify({ extends: './tsconfig.json', include: ['*.ts'] }));
    const r = await run(process.execPath, [TSC, '-p', 'tsconfig.check.json', '--pretty', 'false', '--listFiles'], 120_000, { cwd: app });
    tscOutput = r.stdout + r.stderr;
    found = diagnostics(r.stdout);
    listed = r.stdout.split('\n').filter((l) => l.endsWith('.d.ts')).map((l) => fs.realpathSync(l.trim()));
  });

  after(() => {
    if (app !== '') fs.rmSync(app, { recursive: true, force: true });
  });

  it('has good and bad programs to check', () => {
    assert.ok(fixtures.includes('ok-typed.ts'), `fixtures: ${fixtures.join(', ')}`);
    assert.ok(fixtures.includes('bad-string-buffer.ts'), `fixtures: ${fixtures.join(', ')}`);
  });

  it('reports no error in any declaration file', () => {
    const elsewhere = found.filter((d) => !fixtures.includes(path.basename(d.file)) || path.dirname(d.file) !== app);
    assert.deepEqual(elsewhere.map((d) => d.text), [], tscOutput);
  });

  it('compiles every ok-*.ts without a diagnostic', () => {
    const ok = fixtures.filter((f) => f.startsWith('ok-'));
    const errors = found.filter((d) => ok.includes(path.basename(d.file)));
    assert.deepEqual(errors.map((d) => d.text), [], tscOutput);
  });

  it('rejects every bad-*.ts with the error its first line names', () => {
    const bad = fixtures.filter((f) => f.startsWith('bad-'));
    assert.ok(bad.length >= 2, `bad fixtures: ${bad.join(', ')}`);
    for (const f of bad) {
      const expected = /^\/\/ expect-error: (TS\d+)/.exec(fs.readFileSync(path.join(FIXTURES, f), 'utf8'))?.[1];
      assert.ok(expected, `${f}: the first line must be "// expect-error: TS<code>"`);
      const codes = found.filter((d) => path.basename(d.file) === f).map((d) => d.code);
      assert.ok(codes.length > 0, `${f} compiled, but must fail with ${expected}\n${tscOutput}`);
      assert.deepEqual([...new Set(codes)], [expected], `${f}: expected only ${expected}\n${tscOutput}`);
    }
  });

  it('keeps the public entry clear of the internal layers', () => {
    const dist = fs.realpathSync(path.join(DIST, 'src'));
    const ours = listed.filter((f) => f.startsWith(dist + path.sep));
    assert.ok(ours.some((f) => f.endsWith(path.join('mpir', 'comm.d.ts'))), `declarations reached:\n${ours.join('\n')}`);
    const internal = ours.filter((f) => INTERNAL_LAYERS.includes(path.relative(dist, f).split(path.sep)[0]!));
    assert.deepEqual(internal, [], 'the declarations of the public entry import internal layers');
    const marked = ours.filter((f) => fs.readFileSync(f, 'utf8').includes('@internal'));
    assert.deepEqual(marked, [], 'declarations still carry @internal members (stripInternal off?)');
  });

  it('runs every ok-* program with two ranks: every rank prints "ok <rank>"', { timeout: 120_000 }, async () => {
    for (const ok of fixtures.filter((f) => f.startsWith('ok-'))) {
      const program = path.join(app, ok.replace(/\.ts$/, '.js'));
      assert.ok(fs.existsSync(program), `tsc emitted no ${path.basename(program)}\n${tscOutput}`);
      const r = await tsmpiexec(['-n', '2', '--timeout', '40', process.execPath, program], 50_000, { cwd: app });
      assert.equal(r.status, 0, `${ok}: exit status ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      assert.deepEqual(r.stdout.split('\n').filter((l) => l.startsWith('ok ')).sort(), ['ok 0', 'ok 1'], `${ok}: ${r.stdout}`);
    }
  });
});

describe('declaration files under dist/src', () => {
  it('all compile with strict checks and skipLibCheck false', { timeout: 120_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-dts-'));
    try {
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
        compilerOptions: {
          target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022'], types: ['node'],
          typeRoots: [path.join(ROOT, 'node_modules', '@types')], strict: true, skipLibCheck: false, noEmit: true,
        },
        include: [path.join(DIST, 'src', '**', '*.d.ts')],
      }));
      const r = await run(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false', '--listFiles'], 110_000, { cwd: dir });
      const checked = r.stdout.split('\n').filter((l) => l.startsWith(path.join(DIST, 'src')));
      assert.ok(checked.length > 50, `only ${checked.length} declaration files checked\n${r.stdout}`);
      assert.equal(r.status, 0, r.stdout + r.stderr);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
