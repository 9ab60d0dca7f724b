import { BootstrapError } from '../common/errors.js';

/**
 * A rank's business card, published through the process manager at Init: where the rank runs
 * (node id, kernel id, pid), the name of its doorbell, and one field per device that runs on it (what a
 * peer needs to reach it: ch_shmem's segment name, ch_sci's SCI node id). Encoded as
 * `key=value` pairs joined by `,` because PMI values may not contain spaces.
 *
 *   v=3,node=<node id>,kernel=<kernel id>,pid=<pid>,bell=<doorbell segment>[,fence=<cores>][,<device name>=<device field>]...
 */
export interface BusinessCard {
  readonly rank: number;
  /** Ranks with the same node id share memory. */
  readonly nodeId: string;
  /**
   * Ranks with the same kernel id run on one kernel and share its CPUs, whether or not they
   * share memory (hosts emulated in namespaces share one; real hosts each have their own):
   * what decides whether a wait may spin.
   */
  readonly kernelId: string;
  readonly pid: number;
  /** The rank's doorbell segment (peers that share memory with it ring it). */
  readonly bell: string;
  /**
   * Set when the rank registered for membarrier's asymmetric fence: the cores it may run on
   * (publish-fence.ts); null otherwise.
   */
  readonly fenceCores: number | null;
  /** Field of each device running on the rank, by device name; a device that does not run has none. */
  readonly devices: ReadonlyMap<string, string>;
}

const CARD_VERSION = '3';
/** Keys of the card itself, which no device may take as its name. */
export const RESERVED_CARD_KEYS: readonly string[] = ['v', 'node', 'kernel', 'pid', 'bell', 'fence'];

export function cardKey(rank: number): string {
  return `tsmpi-card-${rank}`;
}

export function encodeCard(card: BusinessCard): string {
  const parts = [`v=${CARD_VERSION}`, `node=${card.nodeId}`, `kernel=${card.kernelId}`, `pid=${card.pid}`, `bell=${card.bell}`];
  if (card.fenceCores !== null) parts.push(`fence=${card.fenceCores}`);
  for (const [name, field] of card.devices) parts.push(`${name}=${field}`);
  for (const v of [card.nodeId, card.kernelId, card.bell, ...card.devices.keys(), ...card.devices.values()]) {
    if (/[\s,=]/.test(v)) throw new BootstrapError(`business card field ${JSON.stringify(v)} contains a space, ',' or '='`);
  }
  return parts.join(',');
}

export function decodeCard(rank: number, text: string): BusinessCard {
  const fields = new Map<string, string>();
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const pid = Number(fields.get('pid'));
  const nodeId = fields.get('node');
  const kernelId = fields.get('kernel');
  const bell = fields.get('bell');
  if (fields.get('v') !== CARD_VERSION || !nodeId || !kernelId || !Number.isInteger(pid) || !bell) {
    throw new BootstrapError(`rank ${rank} published a business card tsmpi cannot read: ${JSON.stringify(text)}`);
  }
  const fence = fields.get('fence');
  const fenceCores = fence === undefined ? null : Number(fence);
  if (fenceCores !== null && !(Number.isInteger(fenceCores) && fenceCores > 0)) {
    throw new BootstrapError(`rank ${rank} published a business card with a bad fence field: ${JSON.stringify(text)}`);
  }
  for (const key of RESERVED_CARD_KEYS) fields.delete(key);
  return { rank, nodeId, kernelId, pid, bell, fenceCores, devices: fields };
}
