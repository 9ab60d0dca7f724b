/** What every scenario of peer.ts gets, and the helpers they share. */
import { addon, UCX_CQ_CLOSE, type UcxEndpoint } from '../../../src/native/addon.js';
import { heard, hear, tell } from './channel.js';
import { type Rank, type Tracker, until } from './kit.js';

export interface Peer {
  readonly role: 'a' | 'b';
  readonly me: number;
  readonly partner: number;
  readonly rank: Rank;
  readonly ep: UcxEndpoint;
  readonly tracker: Tracker;
}

/** The partner's next side-channel message, progressing meanwhile (its transfers may need us). */
export async function listen<T = Record<string, unknown>>(p: Peer, limitMs = 60_000): Promise<T> {
  await until(() => (p.tracker.poll(), heard()), 'the partner', limitMs);
  return hear<T>();
}

/** Both sides agree they are done (while progressing, so the partner's last transfers finish), then close. */
export async function closeTogether(p: Peer): Promise<void> {
  tell({ done: true });
  await listen(p);
  const r = addon.ucxEpClose(p.ep, false, 999_999);
  if (r === 1) await until(() => (p.tracker.poll(), p.tracker.done.get(999_999)?.kind === UCX_CQ_CLOSE), 'the close', 10_000);
}
