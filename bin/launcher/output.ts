import type { Readable, Writable } from 'node:stream';

/**
 * Forwards a rank's output stream line by line, so lines of different ranks never interleave
 * inside a line. A last line without a newline is written when the stream ends. `watch` sees
 * each run of whole lines (without the prefix) as it is forwarded.
 */
export function forwardLines(from: Readable, to: Writable, prefix: string, watch?: (lines: string) => void): Promise<void> {
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
    const whole = text.slice(0, end + 1);
    to.write(prefix === '' ? whole : prefixLines(whole, prefix));
    watch?.(whole);
  });
  return new Promise((resolve) => {
    from.on('close', () => {
      if (pending !== '') to.write(prefix === '' ? `${pending}\n` : prefixLines(`${pending}\n`, prefix));
      pending = '';
      resolve();
    });
  });
}

/** Writes whole lines (ending in a newline), each with `prefix`. */
export function writeLines(to: Writable, text: string, prefix: string): void {
  to.write(prefix === '' ? text : prefixLines(text, prefix));
}

function prefixLines(text: string, prefix: string): string {
  return prefix + text.slice(0, -1).split('\n').join(`\n${prefix}`) + '\n';
}
