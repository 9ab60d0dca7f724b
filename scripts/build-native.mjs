// Builds native/ with node-gyp against the headers of the running Node, never downloading them:
// a distribution's Node ships its headers under <prefix>/include/node, which --nodedir points at.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));

function nodeGypScript() {
  try {
    return require.resolve('node-gyp/bin/node-gyp.js', { paths: [root] });
  } catch {
    if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp;
    throw new Error('build-native: node-gyp not found (run npm install, or set npm_config_node_gyp)');
  }
}

const prefix = path.dirname(path.dirname(process.execPath));
const args = [nodeGypScript(), 'rebuild', '--directory', path.join(root, 'native')];
if (existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);
const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
if (r.status !== 0) {
  console.error(`build-native: node-gyp failed (exit ${r.status ?? r.signal})`);
  process.exit(1);
}
