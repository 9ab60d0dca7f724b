/**
 * PMI-1's spawn command, the one multi-line message of the protocol, exactly as MPICH's simple
 * PMI (src/pmi/simple/simple_pmi.c, PMI_Spawn_multiple) sends it and hydra
 * (src/pm/hydra/pm/pmiserv/pmiserv_pmi_v1.c, fn_spawn) reads it. One block per command of a
 * Spawn_multiple, each block one field per line, ended by `endcmd`:
 *
 *   mcmd=spawn
 *   nprocs=<processes of this command>
 *   execname=<command>
 *   totspawns=<blocks in this request>
 *   spawnssofar=<1-based index of this block>
 *   arg1=<first argument>  ...  arg<argcnt>=<last>
 *   argcnt=<number of arguments>
 *   preput_num=<n>                     (the same preput in every block)
 *   preput_key_0=<key>  preput_val_0=<value>  ...
 *   info_num=<m>
 *   info_key_0=<key>  info_val_0=<value>  ...
 *   endcmd
 *
 * A field's value is everything after its first `=` up to the newline, so arguments may hold
 * spaces and `=` (never a newline). The server answers the whole request once, after the last
 * block: `cmd=spawn_result rc=0 [errcodes=e0,e1,...]` (one code per process, in command order;
 * hydra sends no errcodes, which means all 0), or `rc=<non-zero> msg=<why>`.
 */
import { PmiError } from '../common/errors.js';
import { PMI_MAXLINE } from './wire.js';

/** One command of a spawn request as it travels. */
export interface SpawnBlock {
  readonly command: string;
  readonly args: readonly string[];
  readonly maxprocs: number;
  /** Info keys in the order given; unknown keys are carried and left to the server to ignore. */
  readonly info: ReadonlyArray<readonly [string, string]>;
}

/** A whole spawn request: its blocks and the preput (key-value pairs for the new job's space). */
export interface SpawnRequest {
  readonly blocks: readonly SpawnBlock[];
  readonly preput: ReadonlyArray<readonly [string, string]>;
}

/** The text of each block of `request`, ready to write (each ends with `endcmd\n`). */
export function formatSpawnBlocks(request: SpawnRequest): string[] {
  const total = request.blocks.length;
  return request.blocks.map((b, i) => {
    const lines = ['mcmd=spawn', field('nprocs', b.maxprocs), field('execname', b.command),
      field('totspawns', total), field('spawnssofar', i + 1)];
    b.args.forEach((a, k) => lines.push(field(`arg${k + 1}`, a)));
    lines.push(field('argcnt', b.args.length), field('preput_num', request.preput.length));
    request.preput.forEach(([k, v], n) => lines.push(field(`preput_key_${n}`, k), field(`preput_val_${n}`, v)));
    lines.push(field('info_num', b.info.length));
    b.info.forEach(([k, v], n) => lines.push(field(`info_key_${n}`, k), field(`info_val_${n}`, v)));
    lines.push('endcmd');
    return `${lines.join('\n')}\n`;
  });
}

function field(key: string, value: string | number): string {
  const text = String(value);
  if (text.includes('\n')) throw new PmiError(`PMI spawn: ${key} ${JSON.stringify(text)} contains a newline, which PMI cannot carry`);
  const line = `${key}=${text}`;
  if (Buffer.byteLength(line) >= PMI_MAXLINE) {
    throw new PmiError(`PMI spawn: the ${key} line is ${Buffer.byteLength(line)} bytes, PMI lines hold fewer than ${PMI_MAXLINE}`);
  }
  return line;
}

/**
 * The server's side: collects the lines of one client's spawn request (the first being
 * `mcmd=spawn`) until the block numbered `totspawns` has ended; then `push` returns the request.
 */
export class SpawnAssembler {
  private fields = new Map<string, string>();
  private readonly blocks: Map<string, string>[] = [];

  /** Whether a request is under way (a line of it has come and the last block has not ended). */
  get active(): boolean {
    return this.fields.size > 0 || this.blocks.length > 0;
  }

  /** Takes one line (newline included); returns the request once it is whole, else null. Throws PmiError on a malformed one. */
  push(line: string): SpawnRequest | null {
    const text = line.endsWith('\n') ? line.slice(0, -1) : line;
    if (text === 'endcmd') {
      this.blocks.push(this.fields);
      this.fields = new Map();
      const total = intOf(this.blocks[0]!, 'totspawns', 1);
      if (this.blocks.length < total) return null;
      try {
        return toRequest(this.blocks);
      } finally {
        this.blocks.length = 0;
      }
    }
    const eq = text.indexOf('=');
    if (eq <= 0) throw new PmiError(`PMI spawn: line ${JSON.stringify(text)} is not key=value`);
    this.fields.set(text.slice(0, eq), text.slice(eq + 1));
    return null;
  }
}

function toRequest(blocks: readonly Map<string, string>[]): SpawnRequest {
  const out: SpawnBlock[] = [];
  for (const f of blocks) {
    const command = f.get('execname');
    if (command === undefined || command === '') throw new PmiError('PMI spawn: a block has no execname');
    const args: string[] = [];
    const argcnt = intOf(f, 'argcnt', 0);
    for (let k = 1; k <= argcnt; k++) args.push(required(f, `arg${k}`));
    const info: [string, string][] = [];
    const infoNum = f.has('info_num') ? intOf(f, 'info_num', 0) : 0;
    for (let k = 0; k < infoNum; k++) info.push([required(f, `info_key_${k}`), required(f, `info_val_${k}`)]);
    out.push({ command, args, maxprocs: intOf(f, 'nprocs', 0), info });
  }
  // Every block repeats the preput; the first one's is the request's.
  const first = blocks[0]!;
  const preput: [string, string][] = [];
  const preputNum = first.has('preput_num') ? intOf(first, 'preput_num', 0) : 0;
  for (let k = 0; k < preputNum; k++) preput.push([required(first, `preput_key_${k}`), required(first, `preput_val_${k}`)]);
  if (out.every((b) => b.maxprocs === 0)) throw new PmiError('PMI spawn: every command asks for 0 processes');
  return { blocks: out, preput };
}

function required(f: ReadonlyMap<string, string>, key: string): string {
  const v = f.get(key);
  if (v === undefined) throw new PmiError(`PMI spawn: the block has no ${key}`);
  return v;
}

function intOf(f: ReadonlyMap<string, string>, key: string, min: number): number {
  const text = required(f, key);
  const v = Number(text);
  if (!/^\d+$/.test(text) || v < min) throw new PmiError(`PMI spawn: ${key}=${JSON.stringify(text)} is not an integer >= ${min}`);
  return v;
}
