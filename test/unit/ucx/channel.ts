/**
 * The side channel of a UCX peer program (peer.ts) to its partner, through the test that
 * started both: lines `PEER <json>` on stdout reach the partner's stdin, `RESULT <json>` goes
 * to the test, `LOG <text>` to the test's diagnostics. Used only to exchange addresses and keys
 * and to agree on phases: the data itself travels through UCX.
 */
import readline from 'node:readline';

const lines: string[] = [];
const waiters: ((line: string) => void)[] = [];
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const w = waiters.shift();
  if (w !== undefined) w(line);
  else lines.push(line);
});

export function tell(message: object): void {
  process.stdout.write(`PEER ${JSON.stringify(message)}\n`);
}

/** The partner's next message (or the test's, for a line it writes itself). */
export function hear<T = Record<string, unknown>>(): Promise<T> {
  const line = lines.shift();
  if (line !== undefined) return Promise.resolve(JSON.parse(line) as T);
  return new Promise((resolve) => waiters.push((l) => resolve(JSON.parse(l) as T)));
}

/** Whether a message is waiting (lets a spinning loop look without blocking). */
export function heard(): boolean {
  return lines.length > 0;
}

export function report(result: object): void {
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

export function log(text: string): void {
  process.stdout.write(`LOG ${text}\n`);
}
