#!/usr/bin/env node
import { declaredTunables } from '../src/common/config.js';
import '../src/config-all.js';
import { parseCommandLine, USAGE, UsageError } from './launcher/args.js';
import { scriptCommandProblem } from './launcher/command.js';
import { Job } from './launcher/job.js';
import { versionText } from './launcher/version.js';

// A reader that goes away (`tsmpiexec ... | head`) must not crash the launcher: output to a
// closed pipe is dropped and the job runs on.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(process.argv.slice(2), process.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`tsmpiexec: ${e.message}\n${USAGE}`);
    return 2;
  }
  if (parsed.kind === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (parsed.kind === 'help-env') {
    for (const t of declaredTunables()) {
      process.stdout.write(`${t.name}\n    ${t.description}\n    default ${t.defaultText}; accepted ${t.rangeText} (${t.layer})\n`);
    }
    return 0;
  }
  if (parsed.kind === 'version') {
    process.stdout.write(versionText());
    return 0;
  }
  const { command, args, nprocs } = parsed.options;
  const problem = scriptCommandProblem(command, args, nprocs);
  if (problem !== null) {
    process.stderr.write(`tsmpiexec: ${problem}\n`);
    return 127;
  }
  return new Job(parsed.options).run();
}

main().then((status) => {
  process.exitCode = status;
}, (err: unknown) => {
  process.stderr.write(`tsmpiexec: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
