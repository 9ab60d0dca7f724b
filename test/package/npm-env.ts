// What the package test needs around npm: a user's environment without a compiler, the npm and
// tsc invocations, and the placeholder fixtures used until test/package/fixtures/ has programs.
import fs from 'node:fs';
import path from 'node:path';

import { ROOT, run, which, type RunResult } from '../helpers.js';

/** The tools whose absence proves an install compiled nothing. */
export const TOOLCHAIN = ['g++', 'c++', 'cc', 'gcc', 'make', 'python3', 'python'];

/**
 * A directory holding only node, npm, npx and sh (symlinks; npm runs scripts with sh), for a PATH on which no compiler, make or
 * Python can be found; returns it. (Node's own directory is often /usr/bin, which has them all.)
 */
export function noCompilerBin(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const tool of ['node', 'npm', 'npx', 'sh']) {
    const found = tool === 'node' ? process.execPath : which(tool);
    if (found === null) throw new Error(`${tool} is not on PATH`);
    fs.symlinkSync(fs.realpathSync(found), path.join(dir, tool));
  }
  return dir;
}

/**
 * The environment of a person's shell with `PATH` as given: what npm inherits when the tests run
 * under `npm test` (npm_* variables, the lifecycle's PATH with node_modules/.bin) is left out;
 * HOME (the npm cache and ~/.npmrc), locale and proxies stay.
 */
export function userEnv(pathValue: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: pathValue };
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(HOME|USER|LOGNAME|LANG|LC_\w+|TMPDIR|TZ|(https?|no|all)_proxy|(HTTPS?|NO|ALL)_PROXY|npm_config_(registry|cache|userconfig))$/.test(k)) {
      env[k] = v;
    }
  }
  return env;
}

/** npm (the program at `npmPath`) with the given arguments in `cwd`, bounded by `limitMs`. */
export function npm(npmPath: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv,
                    limitMs: number): Promise<RunResult> {
  return run(npmPath, args, limitMs, { cwd, env });
}

/** The project's own TypeScript compiler on a tsconfig. */
export function tsc(project: string, cwd: string, limitMs = 120_000): Promise<RunResult> {
  return run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], limitMs, { cwd });
}

/**
 * A tsconfig that checks `files` as --strict programs against the installed package's
 * declarations (skipLibCheck off, so a broken .d.ts in the package fails too), extending the
 * fixtures' own tsconfig.json; with `emit` the programs are compiled beside their sources.
 */
export function writeCheckConfig(dir: string, name: string, files: readonly string[], emit: boolean): string {
  const config = `tsconfig.check-${name}.json`;
  fs.writeFileSync(path.join(dir, config), JSON.stringify({
    extends: './tsconfig.json',
    compilerOptions: { strict: true, skipLibCheck: false, noEmit: !emit, outDir: '.', rootDir: '.' },
    files,
    include: [],
  }, null, 2));
  return config;
}

/** The errors of a tsc run: `file(line,col): error TSnnnn: text` lines. */
export function tscErrors(output: string): { file: string; code: string; text: string }[] {
  const errors = [];
  for (const m of output.matchAll(/^(.+?)\(\d+,\d+\): error (TS\d+): (.*)$/gm)) {
    errors.push({ file: m[1]!, code: m[2]!, text: m[3]! });
  }
  return errors;
}

