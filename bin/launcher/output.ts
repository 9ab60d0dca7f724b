import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/**
 * Reads `from` as text and hands on whole lines only: `lines` gets each run of whole lines (each
 * ending in a newline) as it arrives, and a last line without a newline, given one, when the
 * stream closes. Resolves when it has closed.
 */
export function onWholeLines(from: Readable, lines: (text: string) => void): Promise<void> {
  from.setEncoding('utf8');
  let pending = '';
  from.on('data', (chunk: string) => {
    const text = pending + chunk;
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      pending = text;
      return;
    }
    pending = text.slice(end + 1);
    lines(text.slice(0, end + 1));
  });
  return new Promise((resolve) => {
    from.on('close', () => {
      if (pending !== '') lines(`${pending}\n`);
      pending = '';
      resolve();
    });
  });
}

/**
 * Forwards a rank's output stream line by line, so lines of different ranks never interleave
 * inside a line. `watch` sees each run of whole lines (without the prefix) as it is forwarded.
 */
export function forwardLines(from: Readable, to: Writable, prefix: string, watch?: (lines: string) => void): Promise<void> {
  return onWholeLines(from, (whole) => {
    writeLines(to, whole, prefix);
    watch?.(whole);
  });
}

/** Writes whole lines (ending in a newline), each with `prefix`. */
export function writeLines(to: Writable, text: string, prefix: string): void {
  to.write(prefix === '' ? text : prefixLines(text, prefix));
}

function prefixLines(text: string, prefix: string): string {
  return prefix + text.slice(0, -1).split('\n').join(`\n${prefix}`) + '\n';
}

/**
 * Signals a rank started in a process group of its own (detached): the whole group, so that
 * wrappers between the launcher and node (npx, sh) take their children with them; the child
 * alone if the group is gone.
 */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}
