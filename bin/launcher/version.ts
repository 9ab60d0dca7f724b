import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * tsmpi's package.json, found by walking up from this file: from bin/launcher (sources run by
 * tsx), dist/bin/launcher (the build) or node_modules/tsmpi/dist/bin/launcher (an installed
 * package) alike. Only a package.json named tsmpi counts, so an enclosing project's is skipped.
 */
export function findPackageJson(from = path.dirname(fileURLToPath(import.meta.url))): { path: string; version: string } | null {
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

/** The --version text: tsmpi's version and the Node.js that runs the launcher (and, by default, the ranks). */
export function versionText(): string {
  const pkg = findPackageJson();
  return `tsmpiexec (tsmpi) ${pkg?.version ?? 'unknown (package.json not found)'}\nnode ${process.version}\n`;
}
