import fs from 'node:fs';
import path from 'node:path';

/** Script files that are run by an interpreter, not executed themselves. */
const SCRIPT = /\.(?:[cm]?js|[cm]?ts|tsx|jsx)$/;
const TYPESCRIPT = /\.(?:[cm]?ts|tsx)$/;

/**
 * Why `command` cannot be started, with the fix, when it is a script file that is not a
 * program of its own (`tsmpiexec -n 2 app.js` instead of `... node app.js`); null when it is a
 * program, or not a script (then spawn's own error is clear enough). A script that is executable
 * (a shebang line and mode +x) is a program and starts as it is.
 */
export function scriptCommandProblem(command: string, args: readonly string[], nprocs: number,
                                     env: NodeJS.ProcessEnv = process.env): string | null {
  if (!SCRIPT.test(command)) return null;
  if (resolveExecutable(command, env) !== null) return null;
  const runner = TYPESCRIPT.test(command) ? 'npx tsx' : 'node';
  const shown = [command, ...args].map(quoteForShell).join(' ');
  const exists = fs.existsSync(command);
  const why = exists ? 'is a script file, not an executable program' : `is not a program on PATH${command.includes('/') ? ' nor an existing file' : ''}`;
  return `${JSON.stringify(command)} ${why}: did you mean \`tsmpiexec -n ${nprocs} ${runner} ${shown}\`?`;
}

/** The file spawn would execute for `command` (a path, or a name looked up on PATH); null if none. */
export function resolveExecutable(command: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = command.includes('/')
    ? [command]
    : (env.PATH ?? '').split(':').filter((d) => d !== '').map((d) => path.join(d, command));
  for (const p of candidates) {
    try {
      if (fs.statSync(p).isFile()) {
        fs.accessSync(p, fs.constants.X_OK);
        return p;
      }
    } catch {
      // Not here, or not executable.
    }
  }
  return null;
}

export function quoteForShell(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
