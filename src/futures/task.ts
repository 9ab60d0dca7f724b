/**
 * What a task is, on the wire and on each side. JavaScript cannot send a closure, so a task's
 * function travels in one of two forms:
 *
 * - source text: a self-contained function (`(x) => x * x`, `function f(a, b) {...}`, an async
 *   function, a method written `name(x) {...}`), sent as `fn.toString()` and compiled again on
 *   the worker. It must not use variables from around it (they do not exist over there): only
 *   its parameters, globals and what it imports with `await import(...)`.
 * - a module reference `'<module>#<export>'` (`<module>` alone means its default export): the
 *   worker imports the module once and calls the export. A relative path (`./tasks.js`)
 *   is taken from the master's current directory; `new URL('./tasks.js', import.meta.url)`
 *   names a module beside the script wherever the job starts.
 *
 * Arguments and results go through node:v8's serializer (as comm.send), so they must be
 * structured-cloneable.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export type TaskSpec =
  | { readonly kind: 'source'; readonly text: string }
  | { readonly kind: 'module'; readonly url: string; readonly name: string };

/** A task's function: a self-contained function, or `'<module>#<export>'` (a string or URL). */
export type TaskFunction = ((...args: any[]) => unknown) | string | URL;

type Callable = (...args: unknown[]) => unknown;

/** Source texts compiled on this process; bounded, as a program may make functions without end. */
const compiled = new Map<string, Callable>();
const COMPILED_LIMIT = 512;

/**
 * The wire form of `fn`, or a sentence saying what is wrong with it (naming `argName`), for
 * the caller to raise as MPI.ERR_ARG.
 */
export function taskSpec(fn: unknown, argName: string): TaskSpec | string {
  if (typeof fn === 'function') {
    const text = Function.prototype.toString.call(fn);
    if (/\{\s*\[native code\]\s*\}\s*$/.test(text)) {
      return `${argName} is a built-in or bound function (${fn.name || 'anonymous'}), whose source cannot be sent to a worker; ` +
        'wrap it in a function of its own, e.g. (x) => Math.sqrt(x)';
    }
    if (/^class\b/.test(text)) return `${argName} is a class (${fn.name || 'anonymous'}); a task must be a function`;
    try {
      compileSource(text);
    } catch (e) {
      return `${argName}'s source text does not compile on its own (${(e as Error).message})`;
    }
    return { kind: 'source', text };
  }
  if (typeof fn === 'string' || fn instanceof URL) return moduleSpec(String(fn), argName);
  return `${argName} must be a function or a '<module>#<export>' string, got ${describeValue(fn)}`;
}

function moduleSpec(ref: string, argName: string): TaskSpec | string {
  const hash = ref.lastIndexOf('#');
  // A leading '#' is a package import ('#lib/tasks.js'), not an export name.
  const specifier = hash > 0 ? ref.slice(0, hash) : ref;
  const name = hash > 0 ? ref.slice(hash + 1) : 'default';
  if (specifier.length === 0) return `${argName} ${JSON.stringify(ref)} names no module ('<module>#<export>' expected)`;
  if (!/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(name)) {
    return `${argName} ${JSON.stringify(ref)}: export name ${JSON.stringify(name)} is not an identifier ('<module>#<export>' expected)`;
  }
  const url = /^\.{0,2}\//.test(specifier) ? pathToFileURL(path.resolve(specifier)).href : specifier;
  return { kind: 'module', url, name };
}

/** Compiles a function's source text into the function (cached by text). */
export function compileSource(text: string): Callable {
  let fn = compiled.get(text);
  if (fn !== undefined) return fn;
  fn = compileUncached(text);
  if (compiled.size >= COMPILED_LIMIT) compiled.clear();
  compiled.set(text, fn);
  return fn;
}

function compileUncached(text: string): Callable {
  let value: unknown;
  try {
    // A function expression, arrow function or declaration (as an expression).
    value = new Function(`"use strict"; return (${text}\n);`)();
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    // A method's text (`square(x) { ... }`, `async f() {...}`) is only valid inside an object literal.
    const holder = new Function(`"use strict"; return ({ ${text}\n});`)() as Record<string, unknown>;
    value = Object.values(holder)[0];
  }
  if (typeof value !== 'function') throw new TypeError('the text is not a function');
  return value as Callable;
}

/** A value in a message: its type, and its text when short. */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  if (typeof v === 'object') return `an object (${v.constructor?.name ?? 'no prototype'})`;
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
  return `${typeof v} ${String(v)}`;
}
