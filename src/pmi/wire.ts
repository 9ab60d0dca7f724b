/**
 * PMI-1 wire format: one text line per message, `cmd=<name> key=value key=value\n`, at most
 * 1024 bytes. Field order is not fixed (Slurm puts `rc=` first, hydra last), so a parsed
 * message is a map. Values never contain spaces on the wire except free text (`msg=`,
 * `message=`): a token without `=` continues the previous value, which keeps such text whole.
 */
export const PMI_MAXLINE = 1024;

export interface PmiMessage {
  /** The `cmd=` (or `mcmd=`) value: the command or response name. */
  readonly cmd: string;
  readonly fields: ReadonlyMap<string, string>;
}

export class PmiWireError extends Error {}

export function parseLine(line: string): PmiMessage {
  const text = line.endsWith('\n') ? line.slice(0, -1) : line;
  const fields = new Map<string, string>();
  let lastKey: string | null = null;
  for (const token of text.split(' ')) {
    if (token === '') continue;
    const eq = token.indexOf('=');
    if (eq <= 0) {
      if (lastKey === null) throw new PmiWireError(`PMI line does not start with key=value: ${JSON.stringify(line)}`);
      fields.set(lastKey, `${fields.get(lastKey)} ${token}`);
      continue;
    }
    lastKey = token.slice(0, eq);
    fields.set(lastKey, token.slice(eq + 1));
  }
  const cmd = fields.get('cmd') ?? fields.get('mcmd');
  if (cmd === undefined) throw new PmiWireError(`PMI line has no cmd=: ${JSON.stringify(line)}`);
  fields.delete('cmd');
  fields.delete('mcmd');
  return { cmd, fields };
}

/** Characters a key or a value may not contain on the wire. */
const FORBIDDEN = /[\s=]/;

export function formatLine(cmd: string, fields: Readonly<Record<string, string | number>> = {}): string {
  let line = `cmd=${cmd}`;
  for (const key of Object.keys(fields)) {
    const value = String(fields[key]);
    if (FORBIDDEN.test(key) || key === '') throw new PmiWireError(`PMI key ${JSON.stringify(key)} is empty or has spaces or '='`);
    if (/[\n]/.test(value)) throw new PmiWireError(`PMI value for ${key} contains a newline`);
    line += ` ${key}=${value}`;
  }
  line += '\n';
  if (Buffer.byteLength(line) > PMI_MAXLINE) {
    throw new PmiWireError(`PMI ${cmd} line is ${Buffer.byteLength(line)} bytes, the limit is ${PMI_MAXLINE}`);
  }
  return line;
}

/** Splits a byte stream into lines; keeps a partial last line until its newline arrives. */
export class LineSplitter {
  private pending = '';

  push(chunk: string): string[] {
    const text = this.pending + chunk;
    const lines = text.split('\n');
    this.pending = lines.pop()!;
    return lines.map((l) => l + '\n');
  }

  get rest(): string {
    return this.pending;
  }
}
