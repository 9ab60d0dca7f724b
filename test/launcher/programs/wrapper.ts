/**
 * Stands between tsmpiexec and the rank as npx, tsx or sudo do:
 *   wrapper ipc <command...>      runs the command with an IPC channel at fd 3 (as tsx and npm do)
 *   wrapper close <command...>    closes the inherited PMI_FD first (as sudo or Python's subprocess do)
 *   wrapper replace <command...>  puts a socket of its own at the PMI_FD number
 */
import { spawn, type StdioOptions } from 'node:child_process';
import fs from 'node:fs';

const [mode, command, ...args] = process.argv.slice(2);
const pmiFd = Number(process.env.PMI_FD ?? -1);
let stdio: StdioOptions = 'inherit';
if (mode === 'ipc') {
  stdio = ['inherit', 'inherit', 'inherit', 'ipc'];
} else if (mode === 'close') {
  if (pmiFd >= 0) fs.closeSync(pmiFd);
} else if (mode === 'replace') {
  const slots: ('inherit' | 'ignore' | 'pipe')[] = ['inherit', 'inherit', 'inherit'];
  while (slots.length < pmiFd) slots.push('ignore');
  slots.push('pipe');
  stdio = slots;
} else {
  throw new Error(`wrapper: unknown mode ${mode}`);
}
const child = spawn(command!, args, { stdio });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
