import fs from 'node:fs';
import os from 'node:os';

import { digestHex } from '../common/ids.js';
import { SCI_NODE } from './config.js';

/**
 * An id shared exactly by the processes that may share memory: the host name plus the
 * kernel's boot id (two containers with one host name but different kernels differ), plus the
 * emulated SCI node when TSMPI_SCI_NODE splits the machine into several (tsmpiexec --sci-nodes).
 */
export function localNodeId(env: NodeJS.ProcessEnv = process.env): string {
  const sci = SCI_NODE.read(env);
  return sci === '' ? machineId() : `${machineId()}#sci${Number(sci)}`;
}

/**
 * An id shared exactly by the processes that run on one kernel, and so share its CPUs: a hash
 * of the boot id (hosts emulated in namespaces share it; each real host has its own), or of
 * the host name where there is no procfs.
 */
export function localKernelId(): string {
  const boot = bootId();
  return digestHex(boot === '' ? `host/${os.hostname()}` : `boot/${boot}`, 12);
}

function bootId(): string {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return ''; // No procfs: the host name alone decides.
  }
}

function machineId(): string {
  const boot = bootId();
  const host = os.hostname();
  const safeHost = host.replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 40);
  return `${safeHost}.${digestHex(`${host}/${boot}`, 8)}`;
}
