import fs from 'node:fs';
import { addon } from '../../src/native/addon.js';

/**
 * The descriptor a gated rank's shell waits on: at most 9, the highest a POSIX shell's
 * redirection can name (dash refuses 21). The rank's program never sees it: the shell closes
 * it as it execs.
 */
export const GATE_FD = 9;

/**
 * A start gate for the ranks of one host. Node's spawn returns only once the child has exec'd
 * (libuv waits on a close-on-exec pipe), and a forked child waits for a core like any other
 * process: with the ranks already started loading Node on every core, each further spawn took
 * ~20 ms, 0.6 s of the 1.6 s that 32 ranks on 2 cores took to reach Init. So every rank starts
 * as a shell that blocks on the gate (a spawn then costs ~1 ms: nothing else runs yet), and
 * once all are started the gate lets them through at once; each shell execs the rank's program
 * in its place (same pid, same descriptors, the gate's closed).
 */
export class StartGate {
  private readonly ours: number;
  private readonly theirs: number;
  private waiting = 0;
  private opened = false;

  constructor() {
    [this.ours, this.theirs] = addon.socketpair();
  }

  /** The descriptor a rank inherits at GATE_FD. */
  get childEnd(): number {
    return this.theirs;
  }

  /** The command that waits at the gate, then becomes `command args` (a path spawn could run). */
  wrap(command: string, args: readonly string[]): [string, string[]] {
    this.waiting++;
    return ['/bin/sh', ['-c', `read _ <&${GATE_FD} && exec "$@" ${GATE_FD}<&-`, 'tsmpi-rank', command, ...args]];
  }

  /** Lets every waiting rank through (a line each) and closes our ends: a late reader sees EOF and ends. */
  open(): void {
    if (this.opened) return;
    this.opened = true;
    try {
      if (this.waiting > 0) fs.writeSync(this.ours, '\n'.repeat(this.waiting));
    } finally {
      fs.closeSync(this.ours);
      fs.closeSync(this.theirs);
    }
  }
}
