// Every ```ts / ```js block of README.md is a program a reader may paste: each is type-checked
// (TypeScript blocks, with the project's tsc, strict, library declarations checked too) and run
// through tsmpiexec with 2 ranks and a time bound, so a snippet that no longer compiles, throws
// or hangs fails the suite. A block opts out only with `<!-- not-run: reason -->` on the line
// before its fence (for fragments that are not whole programs).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { DIST, ROOT, run, tsmpiexec } from '../helpers.js';

interface Snippet {
  readonly index: number;
  /** 1-based line of the opening fence in README.md. */
  readonly line: number;
  readonly lang: 'ts' | 'js';
  readonly code: string;
  /** The reason given by a `<!-- not-run: ... -->` marker, or null. */
  readonly notRun: string | null;
}

const FENCE = /^```(ts|typescript|js|javascript)\s*$/;
const NOT_RUN = /^<!--\s*not-run:\s*(.*?)\s*-->$/;

/** The fenced TypeScript and JavaScript blocks of a Markdown text, in order. */
export function extractSnippets(markdown: string): Snippet[] {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (open === null) {
      // Skip over other fenced blocks whole, so a ``` inside them is not taken for an opener.
      if (lines[i]!.startsWith('```')) while (++i < lines.length && !lines[i]!.startsWith('```'));
      continue;
    }
    let end = i + 1;
    while (end < lines.length && !lines[end]!.startsWith('```')) end++;
    assert.ok(end < lines.length, `README.md:${i + 1}: the code block is never closed`);
    let prev = i - 1;
    while (prev >= 0 && lines[prev]!.trim() === '') prev--;
    const marker = prev >= 0 ? NOT_RUN.exec(lines[prev]!.trim()) : null;
    snippets.push({
      index: snippets.length + 1,
      line: i + 1,
      lang: open[1]!.startsWith('t') ? 'ts' : 'js',
      code: lines.slice(i + 1, end).join('\n') + '\n',
      notRun: marker ? marker[1]! : null,
    });
    i = end;
  }
  return snippets;
}

const README = path.join(ROOT, 'README.md');
const snippets = extractSnippets(fs.readFileSync(README, 'utf8'));
const runnable = snippets.filter((s) => s.notRun === null);
// Inside the package (dist/ is ignored by git), so `import ... from 'tsmpi'` resolves to this
// package through its "exports" and the type check sees its own declarations.
const WORK = path.join(DIST, 'readme-snippets');
const OUT = path.join(WORK, 'out');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const name = (s: Snippet): string => `snippet-${s.index}-line-${s.line}`;
const where = (s: Snippet): string => `README.md:${s.line} (${s.lang} block ${s.index})`;

describe('README code blocks', () => {
  let typeErrors = '';

  before(async () => {
    fs.rmSync(WORK, { recursive: true, force: true });
    fs.mkdirSync(WORK, { recursive: true });
    for (const s of runnable) fs.writeFileSync(path.join(WORK, `${name(s)}.${s.lang}`), s.code);
    fs.writeFileSync(path.join(WORK, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022'], types: ['node'],
        strict: true, skipLibCheck: false, outDir: 'out', rootDir: '.', noEmitOnError: false,
      },
      include: ['*.ts'],
    }, null, 2));
    // tsc reports every file's errors at once; each snippet's test picks out its own lines.
    const r = await run(process.execPath, [TSC, '-p', path.join(WORK, 'tsconfig.json'), '--pretty', 'false'], 120_000, { cwd: WORK });
    typeErrors = r.stdout + r.stderr;
  });

  it('has runnable TypeScript and JavaScript blocks, and opts out only by an explicit marker', () => {
    assert.ok(runnable.filter((s) => s.lang === 'ts').length >= 3, `TypeScript blocks found: ${snippets.map(where).join(', ')}`);
    assert.ok(runnable.filter((s) => s.lang === 'js').length >= 3, `JavaScript blocks found: ${snippets.map(where).join(', ')}`);
    for (const s of snippets) if (s.notRun !== null) assert.ok(s.notRun.length > 0, `${where(s)}: not-run needs a reason`);
  });

  it('type-checks without errors outside the snippets (the declarations themselves)', () => {
    const foreign = typeErrors.split('\n').filter((l) => /error TS\d+/.test(l) && !/^snippet-\d+-line-\d+\.ts\(/.test(l));
    assert.deepEqual(foreign, [], typeErrors);
  });

  for (const s of runnable) {
    it(`${where(s)} ${s.lang === 'ts' ? 'type-checks and ' : ''}runs with 2 ranks`, { timeout: 90_000 }, async () => {
      if (s.lang === 'ts') {
        const mine = typeErrors.split('\n').filter((l) => l.startsWith(`${name(s)}.ts(`));
        assert.deepEqual(mine, [], `${where(s)} does not type-check:\n${mine.join('\n')}\n\n${s.code}`);
      }
      const program = s.lang === 'ts' ? path.join(OUT, `${name(s)}.js`) : path.join(WORK, `${name(s)}.js`);
      assert.ok(fs.existsSync(program), `${program} was not produced:\n${typeErrors}`);
      const r = await tsmpiexec(['-n', '2', process.execPath, program], 60_000, { cwd: ROOT });
      assert.equal(r.status, 0, `${where(s)} exited with ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}\n\n${s.code}`);
      assert.ok(r.stdout.trim().length > 0, `${where(s)} printed nothing\nstderr:\n${r.stderr}`);
    });
  }
});
