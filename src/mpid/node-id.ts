import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';

/**
 * An id shared exactly by the processes that can share memory: the host name plus the
 * kernel's boot id (two containers with one host name but different kernels differ).
 */
export function localNodeId(): string {
  let boot = '';
  try {
    boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // No procfs: the host name alone decides.
  }
  const host = os.hostname();
  const safeHost = host.replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 40);
  return `${safeHost}.${createHash('sha256').update(`${host}/${boot}`).digest('hex').slice(0, 8)}`;
}
