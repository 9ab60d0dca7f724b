import fs from 'node:fs';

/**
 * Checks that PMI_FD names the process manager's socket before the client speaks PMI on it.
 * Between tsmpiexec and node there may be wrappers (npx, npm exec, tsx, a shell, sudo) that
 * close inherited descriptors or put their own channel (an IPC pipe) at a low fd number; PMI
 * written there fails with an errno that says nothing (EINVAL) or confuses the wrapper.
 * tsmpiexec passes the socket's identity (TSMPI_PMI_FD_ID, `dev:ino`), so even a socket of
 * someone else at that number is told apart; under other process managers the fd only has to
 * be a socket.
 *
 * Returns null when the fd is usable, else the reason, in words a person can act on.
 */
export function inheritedSocketProblem(fd: number, expectedId: string | undefined): string | null {
  let st: fs.BigIntStats;
  try {
    st = fs.fstatSync(fd, { bigint: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return `PMI_FD=${fd} is not an open file descriptor in this process (${code ?? String(e)}): a program ` +
      'between the process manager and node closed it';
  }
  if (!st.isSocket()) {
    return `PMI_FD=${fd} is ${kindOf(st)}, not the process manager's socket: a program between the process ` +
      `manager and node closed the inherited descriptor or put one of its own at that number`;
  }
  if (expectedId !== undefined && expectedId !== '' && `${st.dev}:${st.ino}` !== expectedId) {
    return `PMI_FD=${fd} is a socket, but not the one tsmpiexec passed: a program between tsmpiexec and node ` +
      'closed the inherited descriptor or put one of its own at that number';
  }
  return null;
}

/** What to do about an unusable PMI_FD. */
export const PMI_FD_ADVICE = 'start the job with `tsmpiexec --pmi-port ...` (the ranks then connect to the ' +
  "launcher's socket), or run node directly: `tsmpiexec -n N node app.js`";

function kindOf(st: fs.BigIntStats): string {
  if (st.isFIFO()) return 'a pipe';
  if (st.isFile()) return 'a regular file';
  if (st.isCharacterDevice()) return 'a character device (a terminal or /dev/null)';
  if (st.isDirectory()) return 'a directory';
  if (st.isBlockDevice()) return 'a block device';
  return 'something other than a socket (an epoll, eventfd or similar descriptor)';
}
