import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MPI } from '../../../src/index.js';

/**
 * The public API, found by reflection so that a method added later is fuzzed without a change
 * here: the members of every class are those its shipped declarations (dist/src/mpir/**.d.ts,
 * built with stripInternal, so @internal members are absent) declare, with each parameter's
 * name, optionality and declared type; the functions of the MPI object are its function-valued
 * properties, their parameters read from the function's source (a default value = optional).
 */

export interface Param {
  readonly name: string;
  readonly optional: boolean;
  /** The declared type as written ('BufSpec', 'number', 'Status'); '' when unknown. */
  readonly type: string;
}

export interface ApiCall {
  /** 'Comm', 'Datatype', ... or 'MPI' for the functions of the MPI object. */
  readonly owner: string;
  readonly name: string;
  readonly isStatic: boolean;
  readonly isGetter: boolean;
  readonly params: readonly Param[];
}

/** The classes of the MPI object whose instances or statics the fuzzer calls. */
export const CLASSES = ['Comm', 'Intracomm', 'Intercomm', 'Cartcomm', 'Graphcomm', 'Distgraphcomm', 'Group', 'Datatype',
  'Op', 'Info', 'Request', 'Prequest', 'Grequest', 'Message', 'Status', 'Win', 'Errhandler', 'Exception', 'Session'] as const;

const DECL_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src', 'mpir');

function declarationFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...declarationFiles(full));
    else if (entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Splits at commas outside brackets, parentheses, braces and angle brackets. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if ('([{<'.includes(c)) depth++;
    else if (')]}>'.includes(c) && !(c === '>' && text[i - 1] === '=')) depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (text.slice(start).trim() !== '') parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

function parseParams(list: string): Param[] {
  return splitTopLevel(list).map((p) => {
    const m = /^(\.\.\.)?(\w+)(\?)?\s*:\s*([\s\S]*)$/.exec(p);
    if (m === null) return { name: p, optional: true, type: '' };
    return { name: m[2]!, optional: m[1] !== undefined || m[3] !== undefined, type: m[4]!.trim() };
  });
}

/** The text between the parenthesis at `open` and its match. */
function balanced(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  return '';
}

/** Public members by class, from the declarations. */
function declaredMembers(): Map<string, ApiCall[]> {
  const byClass = new Map<string, ApiCall[]>();
  for (const file of declarationFiles(DECL_ROOT)) {
    const text = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    const classRe = /export declare class (\w+)(?:<[^{]*?>)?(?: extends [^{]+)?\s*\{/g;
    for (let m = classRe.exec(text); m !== null; m = classRe.exec(text)) {
      const exported = m[1] === 'MPIException' ? 'Exception' : m[1]!;
      const bodyStart = m.index + m[0].length;
      let depth = 1;
      let i = bodyStart;
      for (; i < text.length && depth > 0; i++) {
        if (text[i] === '{') depth++;
        else if (text[i] === '}') depth--;
      }
      const body = text.slice(bodyStart, i - 1);
      const calls: ApiCall[] = [];
      const memberRe = /^ {4}(static )?(?:readonly )?(get )?(\w+)(\?)?(<[^(]*?>)?\(/gm;
      for (let k = memberRe.exec(body); k !== null; k = memberRe.exec(body)) {
        if (k[3] === 'constructor') continue;
        const params = parseParams(balanced(body, k.index + k[0].length - 1));
        calls.push({ owner: exported, name: k[3]!, isStatic: k[1] !== undefined, isGetter: k[2] !== undefined, params });
      }
      byClass.set(exported, [...(byClass.get(exported) ?? []), ...calls]);
    }
    // Methods a module adds to a class (`declare module './comm.js' { interface Comm { ... } }`,
    // as idup.ts does); properties typed as functions there are calls that raise (comm-missing.ts).
    const augmentRe = /^ {4}interface (\w+) \{\n([\s\S]*?)^ {4}\}/gm;
    for (let m = augmentRe.exec(text); m !== null; m = augmentRe.exec(text)) {
      const memberRe = /^ {8}(\w+)(<[^(]*?>)?\(/gm;
      const body = m[2]!;
      for (let k = memberRe.exec(body); k !== null; k = memberRe.exec(body)) {
        const params = parseParams(balanced(body, k.index + k[0].length - 1));
        const calls = byClass.get(m[1]!) ?? [];
        calls.push({ owner: m[1]!, name: k[1]!, isStatic: false, isGetter: false, params });
        byClass.set(m[1]!, calls);
      }
    }
  }
  return byClass;
}

/** Parameters of a JS function from its source: names, and a default value makes one optional. */
function sourceParams(fn: (...args: never[]) => unknown): Param[] {
  const src = fn.toString();
  const open = src.indexOf('(');
  if (open < 0) return [];
  return splitTopLevel(balanced(src, open)).map((p) => {
    const name = /^(?:\.\.\.)?(\w+)/.exec(p)?.[1] ?? p;
    return { name, optional: p.includes('=') || p.startsWith('...'), type: '' };
  });
}

/** Every public call: the MPI object's functions, then each class's statics, methods and getters. */
export function publicApi(): ApiCall[] {
  const calls: ApiCall[] = [];
  const mpi = MPI as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(mpi)) {
    if (typeof value !== 'function' || (CLASSES as readonly string[]).includes(name)) continue;
    calls.push({ owner: 'MPI', name, isStatic: true, isGetter: false, params: sourceParams(value as () => unknown) });
  }
  const declared = declaredMembers();
  for (const cls of CLASSES) {
    // A subclass's declarations list its own members; inherited ones come from the chain.
    const seen = new Set<string>();
    for (let C = mpi[cls] as { prototype: object; name: string } | null; C && C.prototype; C = Object.getPrototypeOf(C)) {
      const decl = declared.get(C.name === 'MPIException' ? 'Exception' : C.name) ?? [];
      for (const call of decl) {
        const key = `${call.isStatic ? 's' : 'i'}${call.name}`;
        if (seen.has(key) || (call.isStatic && C !== mpi[cls])) continue;
        seen.add(key);
        calls.push({ ...call, owner: cls });
      }
      if (C.name === 'Error' || C.name === 'Object') break;
    }
  }
  return calls;
}
