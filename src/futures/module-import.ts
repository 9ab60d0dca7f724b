/**
 * import() for the runtime (the futures workers load task modules by URL). In the package's
 * bundle the runtime is a script compiled through vm with V8's code cache (src/loader), where
 * import() has no module loader behind it (Node 20 loses a script's import() option when the
 * script comes from the cache): the loader hands the runtime the import() of an ES module of its
 * own. Run from dist/src, the runtime's modules are ES modules and import() is their own.
 */
export type ModuleImporter = (specifier: string) => Promise<Record<string, unknown>>;

let importer: ModuleImporter = (specifier) => import(specifier) as Promise<Record<string, unknown>>;

/** The loader's import(): specifiers are absolute URLs, so where it lives does not matter. */
export function setModuleImporter(f: ModuleImporter): void {
  importer = f;
}

export function importModule(specifier: string): Promise<Record<string, unknown>> {
  return importer(specifier);
}
