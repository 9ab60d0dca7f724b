/**
 * The ProcessManager face of spawn (src/mpid/process-manager.ts, what mpir's Comm.Spawn calls):
 * `spawn-pm parent` publishes a name and spawns 2 `child` processes with an info env of
 * newline-separated NAME=value lines and the PARENT_ROOT_PORT_NAME preput; each child prints
 * what it got through parentValue, its environment and lookupName.
 */
import { fileURLToPath } from 'node:url';
import { connectProcessManager } from '../../../src/mpid/process-manager.js';

const self = fileURLToPath(import.meta.url);
const role = process.argv[2] ?? 'parent';
const pm = connectProcessManager();
const say = (text: string) => console.log(`${role} ${pm.rank}: ${text}`);

if (role === 'parent') {
  say(`parentValue ${pm.parentValue('PARENT_ROOT_PORT_NAME')}`);
  pm.publishName('pm-svc', 'pm-port-1');
  const errcodes = pm.spawn([{
    command: process.execPath, args: [self, 'child'], maxprocs: 2,
    info: new Map([['env', 'A_VAR=1\nB_VAR=two\n'], ['wdir', '/']]),
  }], new Map([['PARENT_ROOT_PORT_NAME', 'tag#0$port#42']]));
  say(`errcodes ${errcodes.join(',')}`);
  try {
    pm.spawn([{ command: process.execPath, args: [], maxprocs: 1, info: new Map([['env', 'NOT A PAIR']]) }], new Map());
  } catch (e) {
    say(`bad env: ${(e as Error).message}`);
  }
} else {
  say(`size ${pm.size} parentValue ${pm.parentValue('PARENT_ROOT_PORT_NAME')} A_VAR ${process.env.A_VAR} B_VAR ${process.env.B_VAR} cwd ${process.cwd()}`);
  say(`lookup ${pm.lookupName('pm-svc')}`);
}
pm.finalize();
