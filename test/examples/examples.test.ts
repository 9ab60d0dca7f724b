// Runs every program in examples/ through tsmpiexec with 2-4 ranks and a time bound, and checks
// what it prints against values computed here (the ring's token, the allreduce sums, the counter),
// so an example that stops teaching the truth fails the suite. The programs import 'tsmpi' by
// name: inside the repository that resolves to the package itself ("exports" self-reference),
// and the last tests copy them into a separate app that depends on tsmpi, as a user would.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, ROOT, type RunResult, tsmpiexec } from '../helpers.js';

const node = process.execPath;
const EXAMPLES = path.join(ROOT, 'examples');
const LIMIT_MS = 60_000;

/** Node flags an example needs: the futures example runs in tsmpi/futures' running-job mode. */
const NODE_FLAGS: Record<string, readonly string[]> = { 'futures-mandelbrot.js': ['--import', 'tsmpi/futures'] };

/** Runs examples/<name> (a .js file) with n ranks from the project root. */
async function example(name: string, n: number, cwd = ROOT): Promise<RunResult> {
  const command = [node, ...(NODE_FLAGS[name] ?? []), path.join('examples', name)];
  const r = await tsmpiexec(['-n', String(n), ...command], LIMIT_MS - 5_000, { cwd });
  assert.equal(r.status, 0, `${name} -n ${n} exited with ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r;
}

/** The output lines, each rank's lines in its own order (ranks interleave freely). */
function lines(r: RunResult): string[] {
  return r.stdout.split('\n').filter((l) => l.length > 0);
}

function hasLine(r: RunResult, line: string): void {
  assert.ok(lines(r).includes(line), `expected the line\n  ${line}\nin\n${r.stdout}`);
}

/** The example's image computed here, serially: its checksum and the number of pixels inside the set. */
function mandelbrot(width: number, height: number, maxIter: number, [x0, x1, y0, y1]: number[]): { checksum: number; inside: number } {
  let checksum = 0;
  let inside = 0;
  for (let y = 0; y < height; y++) {
    const ci = y0! + ((y1! - y0!) * y) / (height - 1);
    for (let x = 0; x < width; x++) {
      const cr = x0! + ((x1! - x0!) * x) / (width - 1);
      let zr = 0;
      let zi = 0;
      let it = 0;
      while (it < maxIter && zr * zr + zi * zi <= 4) {
        const t = zr * zr - zi * zi + cr;
        zi = 2 * zr * zi + ci;
        zr = t;
        it++;
      }
      checksum = (checksum * 31 + it) % 1_000_000_007;
      if (it === maxIter) inside++;
    }
  }
  return { checksum, inside };
}

/** 0 + 1 + ... + (n - 1). */
const triangle = (n: number): number => (n * (n - 1)) / 2;

describe('examples', () => {
  for (const n of [2, 4]) {
    it(`hello.js: every one of ${n} ranks greets`, { timeout: LIMIT_MS }, async () => {
      const r = await example('hello.js', n);
      for (let rank = 0; rank < n; rank++) {
        assert.match(r.stdout, new RegExp(`^Hello from rank ${rank} of ${n} on \\S+ \\(pid \\d+\\)$`, 'm'));
      }
      assert.equal(lines(r).length, n, r.stdout);
    });
  }

  for (const n of [2, 3, 4]) {
    it(`ring.js: the token comes back to rank 0 as the sum of the ranks (${n} ranks)`, { timeout: LIMIT_MS }, async () => {
      const r = await example('ring.js', n);
      hasLine(r, `rank 0: token came back with ${triangle(n)} after visiting ${n} ranks`);
      for (let rank = 1; rank < n; rank++) {
        hasLine(r, `rank ${rank}: got the token from rank ${rank - 1}, passing ${triangle(rank + 1)} to rank ${(rank + 1) % n}`);
      }
    });
  }

  for (const n of [3, 4]) {
    it(`allreduce.js: buffer and object sums, MAX in place, a function in rank order (${n} ranks)`, { timeout: LIMIT_MS }, async () => {
      const r = await example('allreduce.js', n);
      hasLine(r, `Allreduce SUM of [rank, 2*rank, 1]: [${triangle(n)}, ${2 * triangle(n)}, ${n}]`);
      hasLine(r, `Allreduce MAX in place of rank*10: ${(n - 1) * 10}`);
      hasLine(r, `allreduce of rank+1: ${(n * (n + 1)) / 2}`);
      hasLine(r, `allreduce with a function: ${Array.from({ length: n }, (_, i) => `r${i}`).join(' ')}`);
      assert.equal(lines(r).length, 4, r.stdout);
    });
  }

  it('objects.js: send/recv with status, bcast of a Date, gather of one report per rank', { timeout: LIMIT_MS }, async () => {
    const n = 3;
    const r = await example('objects.js', n);
    hasLine(r, 'rank 1 received {"job":"square","values":[1,2,3]} from rank 0, tag 7');
    hasLine(r, 'config on every rank: steps=3 label=demo started=1970-01-01T00:00:00.000Z');
    const reports = lines(r).filter((l) => l.startsWith('report from rank'));
    assert.deepEqual(reports, Array.from({ length: n }, (_, i) => `report from rank ${i}: squares=${i * i}`));
  });

  for (const n of [2, 4]) {
    it(`nonblocking.js: awaited Irecv, Waitall halo exchange, awaited object irecv (${n} ranks)`, { timeout: LIMIT_MS }, async () => {
      const r = await example('nonblocking.js', n);
      for (let rank = 0; rank < n; rank++) {
        const left = (rank - 1 + n) % n;
        const right = (rank + 1) % n;
        hasLine(r, `rank ${rank}: got ${100 + left} from rank ${left} (awaited; event loop free)`);
        hasLine(r, `rank ${rank}: halo from left ${left + 0.5}, from right ${right + 0.5}`);
        hasLine(r, `rank ${rank}: object {"from":${left},"note":"hi"}`);
      }
      assert.equal(lines(r).length, 3 * n, r.stdout);
    });
  }

  it('datatype.js: a column of a row-major matrix sent with Create_vector arrives contiguous', { timeout: LIMIT_MS }, async () => {
    const r = await example('datatype.js', 2);
    // matrix[r][c] = 10r + c, column 2 of 4 rows; the vector's extent spans 3 rows and 1 element.
    hasLine(r, 'rank 1: column 2 of the matrix is [2, 12, 22, 32]');
    hasLine(r, `the column type: size ${4 * 8} bytes, extent ${(3 * 5 + 1) * 8} bytes`);
  });

  for (const n of [2, 4]) {
    it(`counter.js: every Fetch_and_op increment lands in rank 0's window (${n} ranks)`, { timeout: LIMIT_MS }, async () => {
      const r = await example('counter.js', n);
      hasLine(r, `final count: ${n * 100} (${n} ranks x 100 increments)`);
      assert.equal(lines(r).length, 1, r.stdout);
    });
  }

  for (const n of [2, 4]) {
    it(`sessions.js: a communicator from the WORLD process set, a user error handler (${n} ranks)`, { timeout: LIMIT_MS }, async () => {
      const r = await example('sessions.js', n);
      hasLine(r, 'the handler saw "Invalid rank", then the call threw MPI.Exception');
      hasLine(r, 'process sets: mpi://WORLD, mpi://SELF; MPI.Init called: false');
      hasLine(r, `sum of 1..${n} over a communicator made from a group: ${(n * (n + 1)) / 2}`);
      assert.equal(lines(r).length, 3, r.stdout);
    });
  }

  for (const n of [2, 5]) {
    it(`futures-mandelbrot.js: the rows computed by ${n - 1} pool workers make the serial image (${n} ranks)`, { timeout: LIMIT_MS }, async () => {
      const r = await example('futures-mandelbrot.js', n);
      const { checksum, inside } = mandelbrot(480, 320, 255, [-2, 1, -1, 1]);
      hasLine(r, `mandelbrot 480x320, 255 iterations at most: checksum ${checksum}, ${inside} pixels inside the set`);
      assert.equal(lines(r).length, 1, r.stdout);
    });
  }

  for (const n of [2, 4]) {
    it(`io.js: a matrix written by columns through views, a log in rank order (${n} ranks)`, { timeout: LIMIT_MS }, async () => {
      const r = await example('io.js', n);
      // Element (row, c) is row * 100 + c for 4 rows and 2n columns.
      let sum = 0;
      for (let row = 0; row < 4; row++) for (let c = 0; c < 2 * n; c++) sum += row * 100 + c;
      hasLine(r, `matrix 4 x ${2 * n} written by ${n} ranks: sum ${sum}, every rank read its columns back: true`);
      hasLine(r, `log: ${Array.from({ length: n }, (_, k) => `rank ${k} of ${n}`).join('; ')}`);
      assert.equal(lines(r).length, 2, r.stdout);
    });
  }

  for (const n of [1, 2]) {
    it(`spawn.js: ${n} parent(s) spawn 3 workers that compute pi together (${n} ranks)`, { timeout: LIMIT_MS }, async () => {
      const r = await example('spawn.js', n);
      hasLine(r, 'pi is about 3.1415926536, from 3 spawned workers');
      assert.equal(lines(r).length, 1, r.stdout);
    });
  }

  // typed.ts: compiled by the project's tsc (tsconfig includes examples/) to dist/examples/typed.js.
  function checkTyped(r: RunResult, n: number): void {
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    for (let rank = 0; rank < n; rank++) {
      const left = (rank - 1 + n) % n;
      hasLine(r, `rank ${rank}: ${left},${left * left} from rank ${left} (tag 5, 2 ints); bad rank raised MPI.ERR_RANK; ` +
        `left neighbour's sum ${3 * left + 3}`);
      hasLine(r, `result from rank ${rank}: task ${rank}, sum ${3 * rank + 3}`);
    }
    // Rank r contributes [4r, 4r+1, 4r+2, 4r+3].
    const sums = [0, 1, 2, 3].map((i) => 4 * triangle(n) + i * n);
    hasLine(r, `Allreduce: [${sums.join(', ')}]`);
  }

  it('typed.ts, compiled by tsc, runs with node (2 ranks)', { timeout: LIMIT_MS }, async () => {
    const compiled = path.join(DIST, 'examples', 'typed.js');
    assert.ok(fs.existsSync(compiled), `${compiled} is missing: tsconfig.json must include examples/**/*.ts`);
    checkTyped(await tsmpiexec(['-n', '2', node, compiled], LIMIT_MS - 5_000, { cwd: ROOT }), 2);
  });

  // tsx is a devDependency; without it (a production install) there is nothing to run.
  const tsx = path.join(ROOT, 'node_modules', '.bin', 'tsx');
  it('typed.ts runs straight from source through `npx tsx` (2 ranks)', {
    timeout: LIMIT_MS, skip: fs.existsSync(tsx) ? false : 'tsx is not installed (npm install brings it as a devDependency)',
  }, async () => {
    // No --pmi-port: the PMI descriptor must survive npx and tsx's own child node.
    const r = await tsmpiexec(['-n', '2', 'npx', 'tsx', path.join('examples', 'typed.ts')], LIMIT_MS - 5_000, { cwd: ROOT });
    checkTyped(r, 2);
  });

  it('every example works copied into a separate app that depends on tsmpi', { timeout: 4 * LIMIT_MS }, async () => {
    // A user's project: its own package.json (ESM) and tsmpi in node_modules (a link to this
    // checkout, as `npm install <path>` makes). Nothing may import by relative path into the repo.
    const app = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-user-app-'));
    try {
      fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'user-app', private: true, type: 'module' }));
      fs.mkdirSync(path.join(app, 'node_modules'));
      fs.symlinkSync(ROOT, path.join(app, 'node_modules', 'tsmpi'), 'dir');
      fs.mkdirSync(path.join(app, 'examples'));
      const programs = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith('.js'));
      assert.ok(programs.length >= 7, `examples: ${programs.join(', ')}`);
      for (const f of programs) fs.copyFileSync(path.join(EXAMPLES, f), path.join(app, 'examples', f));
      for (const f of programs) {
        const r = await example(f, 2, app);
        assert.ok(lines(r).length > 0, `${f} printed nothing`);
      }
    } finally {
      fs.rmSync(app, { recursive: true, force: true });
    }
  });
});
