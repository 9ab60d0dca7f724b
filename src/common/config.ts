import { ConfigError } from './errors.js';

/**
 * TSMPI_* tunables. Each layer declares its variables in its own config.ts with name, default,
 * range and description; the declarations land in one registry from which the README table and
 * `tsmpiexec --help-env` are printed, so documentation cannot drift from the defaults.
 * Reading a variable validates it and names the variable, its value and the accepted range.
 */
export interface TunableSpec {
  readonly name: string;
  readonly layer: string;
  readonly description: string;
}

export interface DeclaredTunable<T> {
  readonly name: string;
  readonly layer: string;
  readonly description: string;
  /** Human-readable default and accepted range, for the documentation table. */
  readonly defaultText: string;
  readonly rangeText: string;
  /** What read() returns: an integer, a boolean, one of a list of words, or a string of a pattern. */
  readonly kind: 'int' | 'bool' | 'choice' | 'string';
  read(env?: NodeJS.ProcessEnv): T;
}

const registry: DeclaredTunable<unknown>[] = [];

/** Every declared tunable, in declaration order (modules declare when they are loaded). */
export function declaredTunables(): readonly DeclaredTunable<unknown>[] {
  return registry;
}

function register<T>(t: DeclaredTunable<T>): DeclaredTunable<T> {
  if (registry.some((r) => r.name === t.name)) throw new Error(`tunable ${t.name} declared twice`);
  registry.push(t as DeclaredTunable<unknown>);
  return t;
}

function rawValue(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

/** "64k" → 65536; plain integers pass through; anything else is null. */
export function parseSize(text: string): number | null {
  const m = /^(-?\d+)([kKmMgG]?)$/.exec(text.trim());
  if (!m) return null;
  const unit = m[2]!.toLowerCase();
  const scale = unit === 'k' ? 1024 : unit === 'm' ? 1024 ** 2 : unit === 'g' ? 1024 ** 3 : 1;
  return Number(m[1]) * scale;
}

export function declareInt(spec: TunableSpec & { default: number; min: number; max: number }): DeclaredTunable<number> {
  return register({
    ...spec,
    kind: 'int',
    defaultText: String(spec.default),
    rangeText: `${spec.min} .. ${spec.max}`,
    read(env = process.env) {
      const raw = rawValue(spec.name, env);
      if (raw === undefined) return spec.default;
      const value = parseSize(raw);
      if (value === null || !Number.isSafeInteger(value) || value < spec.min || value > spec.max) {
        throw new ConfigError(`${spec.name}=${JSON.stringify(raw)} is not an integer in ` +
          `[${spec.min}, ${spec.max}] (size suffixes k, m, g are accepted)`);
      }
      return value;
    },
  });
}

export function declareBool(spec: TunableSpec & { default: boolean }): DeclaredTunable<boolean> {
  return register({
    ...spec,
    kind: 'bool',
    defaultText: spec.default ? '1' : '0',
    rangeText: '0 or 1',
    read(env = process.env) {
      const raw = rawValue(spec.name, env);
      if (raw === undefined) return spec.default;
      const v = raw.toLowerCase();
      if (v === '1' || v === 'true' || v === 'yes' || v === 'on') return true;
      if (v === '0' || v === 'false' || v === 'no' || v === 'off') return false;
      throw new ConfigError(`${spec.name}=${JSON.stringify(raw)} is not a boolean (1/0, true/false, yes/no, on/off)`);
    },
  });
}

export function declareChoice<T extends string>(spec: TunableSpec & { default: T; choices: readonly T[] }): DeclaredTunable<T> {
  return register({
    ...spec,
    kind: 'choice',
    defaultText: spec.default,
    rangeText: spec.choices.join(' | '),
    read(env = process.env) {
      const raw = rawValue(spec.name, env);
      if (raw === undefined) return spec.default;
      if ((spec.choices as readonly string[]).includes(raw)) return raw as T;
      throw new ConfigError(`${spec.name}=${JSON.stringify(raw)} is not one of ${spec.choices.join(', ')}`);
    },
  });
}

/** A list of command-line flags for a string tunable (--name or --name=value, space-separated), or none. */
export const FLAG_LIST = /^(none|--[a-z0-9-]+(=[\w.]+)?( --[a-z0-9-]+(=[\w.]+)?)*)$/;

export function declareString(spec: TunableSpec & { default: string; pattern: RegExp; patternText: string }): DeclaredTunable<string> {
  return register({
    ...spec,
    kind: 'string',
    defaultText: spec.default === '' ? '(unset)' : spec.default,
    rangeText: spec.patternText,
    read(env = process.env) {
      const raw = rawValue(spec.name, env);
      if (raw === undefined) return spec.default;
      if (spec.pattern.test(raw)) return raw;
      throw new ConfigError(`${spec.name}=${JSON.stringify(raw)} is not ${spec.patternText}`);
    },
  });
}
