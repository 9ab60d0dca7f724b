import { BootstrapError } from '../common/errors.js';

/**
 * A rank's business card, published through the process manager at Init: where the rank runs
 * (node id, pid) and the names of the segments peers attach to. Encoded as `key=value` pairs
 * joined by `,` because PMI values may not contain spaces.
 *
 *   v=1,node=<node id>,pid=<pid>,shm=<segment name>,sci=<SCI node id>
 */
export interface BusinessCard {
  readonly rank: number;
  /** Ranks with the same node id share memory. */
  readonly nodeId: string;
  readonly pid: number;
  /** The rank's ch_shmem segment; '' when the rank has none. */
  readonly shmSegment: string;
  /** The rank's SCI node id when it runs ch_sci (its segments are ids of world rank), 0 otherwise. */
  readonly sciNode: number;
}

const CARD_VERSION = '1';

export function cardKey(rank: number): string {
  return `tsmpi-card-${rank}`;
}

export function encodeCard(card: BusinessCard): string {
  for (const v of [card.nodeId, card.shmSegment]) {
    if (/[\s,=]/.test(v)) throw new BootstrapError(`business card field ${JSON.stringify(v)} contains a space, ',' or '='`);
  }
  return `v=${CARD_VERSION},node=${card.nodeId},pid=${card.pid},shm=${card.shmSegment},sci=${card.sciNode}`;
}

export function decodeCard(rank: number, text: string): BusinessCard {
  const fields = new Map<string, string>();
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const pid = Number(fields.get('pid'));
  const sciNode = Number(fields.get('sci') ?? '0');
  const nodeId = fields.get('node');
  if (fields.get('v') !== CARD_VERSION || !nodeId || !Number.isInteger(pid) || !fields.has('shm') || !Number.isInteger(sciNode)) {
    throw new BootstrapError(`rank ${rank} published a business card tsmpi cannot read: ${JSON.stringify(text)}`);
  }
  return { rank, nodeId, pid, shmSegment: fields.get('shm')!, sciNode };
}
