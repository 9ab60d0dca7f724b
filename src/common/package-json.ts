import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * tsmpi's package.json, found by walking up from `from`: from the sources, the build (dist/,
 * dist/bundle) or an installed package (node_modules/tsmpi/dist/) alike. Only a package.json
 * named tsmpi counts, so an enclosing project's is skipped.
 */
export function findPackageJson(from: string): { path: string; version: string } | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'package.json');
    try {
      const pkg = JSON.parse(fs.readFileSync(candidate, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'tsmpi' && typeof pkg.version === 'string') return { path: candidate, version: pkg.version };
    } catch {
      // No package.json here, or not one we can read: keep walking up.
    }
    if (path.dirname(dir) === dir) return null;
  }
}

/** tsmpi's version, from the package.json above `fromUrl` (a module's import.meta.url). */
export function packageVersion(fromUrl: string): string {
  return findPackageJson(path.dirname(fileURLToPath(fromUrl)))?.version ?? 'unknown (package.json not found)';
}
