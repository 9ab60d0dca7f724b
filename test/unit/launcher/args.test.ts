import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseCommandLine, UsageError, type LaunchOptions } from '../../../bin/launcher/args.js';
import { scriptCommandProblem } from '../../../bin/launcher/command.js';
import { findPackageJson, versionText } from '../../../bin/launcher/version.js';

function launch(argv: string[], env: NodeJS.ProcessEnv = {}): LaunchOptions {
  const p = parseCommandLine(argv, env);
  assert.equal(p.kind, 'launch');
  return (p as { options: LaunchOptions }).options;
}

describe('tsmpiexec command line', () => {
  it('takes the rank count in every mpiexec spelling', () => {
    for (const argv of [['-n', '3'], ['-n3'], ['-n=3'], ['-np', '3'], ['-np3'], ['-np=3'], ['--np', '3'], ['--np=3'], ['-c', '3']]) {
      const o = launch([...argv, 'node', 'app.js', '-n', '7']);
      assert.equal(o.nprocs, 3, argv.join(' '));
      assert.equal(o.command, 'node');
      assert.deepEqual(o.args, ['app.js', '-n', '7'], 'options after the command are the command\'s');
    }
    assert.equal(launch(['node']).nprocs, 1);
  });

  it('rejects bad counts and unknown options with the value named', () => {
    assert.throws(() => parseCommandLine(['-n0', 'x'], {}), (e: Error) => e instanceof UsageError && /-n 0: the number of ranks/.test(e.message));
    assert.throws(() => parseCommandLine(['--np=two', 'x'], {}), /--np two: the number of ranks must be an integer in \[1, 1024\]/);
    assert.throws(() => parseCommandLine(['-n'], {}), /-n needs a value/);
    assert.throws(() => parseCommandLine(['-nx', 'x'], {}), /unknown option -nx/);
    assert.throws(() => parseCommandLine(['-n', '2'], {}), /no command to run/);
    assert.throws(() => parseCommandLine(['--timeout=0', 'x'], {}), /--timeout 0: expected a positive number of seconds/);
  });

  it('takes long options as --opt value and --opt=value', () => {
    const o = launch(['--timeout=2.5', '--sci-nodes=2', '-n', '4', '-x', 'A=1', '-x=B=two', '--tag-output', '--pmi-port', 'cmd']);
    assert.equal(o.timeoutSeconds, 2.5);
    assert.equal(o.sciNodes, 2);
    assert.deepEqual([...o.exports], [['A', '1'], ['B', 'two']]);
    assert.equal(o.tagOutput, true);
    assert.equal(o.pmiPort, true);
  });

  it('takes MPIEXEC_TIMEOUT (seconds) unless --timeout is given', () => {
    assert.equal(launch(['cmd'], { MPIEXEC_TIMEOUT: '30' }).timeoutSeconds, 30);
    assert.equal(launch(['--timeout', '5', 'cmd'], { MPIEXEC_TIMEOUT: '30' }).timeoutSeconds, 5);
    assert.equal(launch(['cmd'], { MPIEXEC_TIMEOUT: ' ' }).timeoutSeconds, null);
    assert.throws(() => parseCommandLine(['cmd'], { MPIEXEC_TIMEOUT: 'soon' }), /MPIEXEC_TIMEOUT=soon: expected a positive number of seconds/);
  });

  it('knows --version, --help and --help-env', () => {
    assert.equal(parseCommandLine(['--version'], {}).kind, 'version');
    assert.equal(parseCommandLine(['-h'], {}).kind, 'help');
    assert.equal(parseCommandLine(['--help-env'], {}).kind, 'help-env');
  });
});

describe('tsmpiexec command check', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-cmd-'));
  const script = path.join(dir, 'app.js');
  fs.writeFileSync(script, 'console.log(1)\n', { mode: 0o644 });
  const runnable = path.join(dir, 'tool.js');
  fs.writeFileSync(runnable, '#!/usr/bin/env node\nconsole.log(1)\n', { mode: 0o755 });

  it('suggests node for a JavaScript file and npx tsx for a TypeScript one', () => {
    assert.equal(scriptCommandProblem(script, ['a b'], 2, { PATH: '' }),
      `${JSON.stringify(script)} is a script file, not an executable program: did you mean \`tsmpiexec -n 2 node ${script} 'a b'\`?`);
    assert.match(scriptCommandProblem('app.mts', [], 4, { PATH: dir })!, /"app\.mts" is not a program on PATH: did you mean `tsmpiexec -n 4 npx tsx app\.mts`\?/);
    assert.match(scriptCommandProblem('./x/app.cjs', [], 1, { PATH: '' })!, /nor an existing file: did you mean `tsmpiexec -n 1 node \.\/x\/app\.cjs`/);
  });

  it('lets programs through: executables (also scripts with +x) and commands without a script suffix', () => {
    assert.equal(scriptCommandProblem(runnable, [], 2, { PATH: '' }), null);
    assert.equal(scriptCommandProblem('tool.js', [], 2, { PATH: dir }), null, 'found on PATH');
    assert.equal(scriptCommandProblem('node', [], 2, { PATH: '' }), null);
    assert.equal(scriptCommandProblem('/nonexistent/program', [], 2, { PATH: '' }), null);
  });
});

describe('tsmpiexec --version', () => {
  it('finds tsmpi\'s package.json from the build and from an installed package, skipping other packages', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-ver-'));
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'my-app', version: '9.9.9' }));
    const pkg = path.join(root, 'node_modules', 'tsmpi');
    fs.mkdirSync(path.join(pkg, 'dist', 'bin', 'launcher'), { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'tsmpi', version: '1.2.3' }));
    assert.deepEqual(findPackageJson(path.join(pkg, 'dist', 'bin', 'launcher')), { path: path.join(pkg, 'package.json'), version: '1.2.3' });
    assert.equal(findPackageJson(path.join(root, 'elsewhere')), null, 'my-app is not tsmpi');
    assert.match(versionText(), new RegExp(`^tsmpiexec \\(tsmpi\\) \\d+\\.\\d+\\.\\d+\\S*\\nnode ${process.version.replace(/\./g, '\\.')}\\n$`));
    fs.rmSync(root, { recursive: true, force: true });
  });
});
