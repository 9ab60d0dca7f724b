import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPackageJson as findFrom } from '../../src/common/package-json.js';

/** tsmpi's package.json above `from` (default: this file's directory); see src/common/package-json.ts. */
export function findPackageJson(from = path.dirname(fileURLToPath(import.meta.url))): { path: string; version: string } | null {
  return findFrom(from);
}

/** The --version text: tsmpi's version and the Node.js that runs the launcher (and, by default, the ranks). */
export function versionText(): string {
  const pkg = findPackageJson();
  return `tsmpiexec (tsmpi) ${pkg?.version ?? 'unknown (package.json not found)'}\nnode ${process.version}\n`;
}
