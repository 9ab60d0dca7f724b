import { BootstrapError } from '../common/errors.js';
import { RESERVED_CARD_KEYS, type BusinessCard } from '../mpid/business-card.js';
import type { DeviceDescriptor } from '../mpid/device.js';

/**
 * The device of every world rank, ourselves included, as Open MPI ranks its BTLs by exclusivity:
 * of the devices running here (`running`), the highest-priority one whose reachable() accepts
 * the pair of cards. `forced` (TSMPI_DEVICE) carries every other rank alone; our own messages
 * still take the best device that reaches us (self). Every rank computes the same answer for a
 * pair, because reachable() reads only the two cards.
 */
export function chooseDevices(me: number, cards: readonly BusinessCard[], running: readonly DeviceDescriptor[],
                              forced: DeviceDescriptor | null, registered: readonly DeviceDescriptor[]): DeviceDescriptor[] {
  const ranked = [...running].sort((a, b) => b.priority - a.priority);
  const mine = cards[me]!;
  return cards.map((peer) => {
    const candidates = forced !== null && peer.rank !== me ? [forced] : ranked;
    const chosen = candidates.find((d) => d.reachable(mine, peer));
    if (chosen !== undefined) return chosen;
    const hints = registered.filter((d) => d.unreachableHint !== undefined && !(mine.devices.has(d.name) && peer.devices.has(d.name)))
      .map((d) => d.unreachableHint!);
    throw new BootstrapError(`rank ${peer.rank} runs on node ${peer.nodeId}, which no device reaches from ${mine.nodeId}` +
      (forced !== null ? ` (TSMPI_DEVICE forces ${forced.name})` : '') + (hints.length > 0 ? `: ${hints.join('; ')}` : ''));
  });
}

/** The device a TSMPI_DEVICE value forces (null for auto). */
export function forcedDevice(value: string, registered: readonly DeviceDescriptor[]): DeviceDescriptor | null {
  if (value === 'auto') return null;
  const d = registered.find((r) => r.forcedBy === value);
  if (d === undefined) throw new BootstrapError(`TSMPI_DEVICE=${value}: no registered device answers to it`);
  return d;
}

/** A registry whose names collide (with each other or with the card's own keys) would mix up cards. */
export function checkRegistry(registered: readonly DeviceDescriptor[]): void {
  const seen = new Set<string>();
  for (const d of registered) {
    if (seen.has(d.name) || RESERVED_CARD_KEYS.includes(d.name) || /[\s,=]/.test(d.name)) {
      throw new Error(`device registry: the name ${JSON.stringify(d.name)} is taken, reserved or not a card key`);
    }
    seen.add(d.name);
  }
}
