/**
 * One side of a two-process UCX test, started by ucx tests (harness.ts) as
 *
 *   node peer.js a|b SCENARIO
 *
 * It makes a context and worker, trades worker addresses with its partner over the side
 * channel (channel.ts), connects, runs the scenario and reports a RESULT line. Scenarios:
 * messages and rndv-later (peer-messages.ts), iov (peer-iov.ts), rma and atomics (peer-rma.ts), wake and kill
 * (peer-wake.ts), watch (peer-watch.ts); what they send is in plan.ts.
 */
import {
  UCX_CQ_EP_FAILED, UCX_FEATURE_AM, UCX_FEATURE_AMO32, UCX_FEATURE_AMO64, UCX_FEATURE_RMA, UCX_FEATURE_WAKEUP,
} from '../../../src/native/addon.js';
import { hear, report, tell } from './channel.js';
import { fromHex, Rank, toHex, Tracker } from './kit.js';
import type { Peer } from './peer-common.js';
import { messages, rndvLater } from './peer-messages.js';
import { atomics, rma } from './peer-rma.js';
import { iov } from './peer-iov.js';
import { kill, wake } from './peer-wake.js';
import { watch } from './peer-watch.js';

const scenarios: Record<string, (p: Peer) => Promise<void>> = {
  messages, 'rndv-later': rndvLater, iov, rma, atomics, wake, kill, watch,
};

async function main(): Promise<void> {
  const [role, name] = process.argv.slice(2) as ['a' | 'b', string];
  const scenario = scenarios[name];
  if ((role !== 'a' && role !== 'b') || scenario === undefined) {
    throw new Error(`usage: peer.js a|b ${Object.keys(scenarios).join('|')}`);
  }
  const me = role === 'a' ? 0 : 1;
  const rank = new Rank(UCX_FEATURE_AM | UCX_FEATURE_RMA | UCX_FEATURE_AMO32 | UCX_FEATURE_AMO64 | UCX_FEATURE_WAKEUP);
  tell({ address: toHex(rank.address()) });
  const { address } = await hear<{ address: string }>();
  const ep = rank.connect(fromHex(address), 1 - me);
  await scenario({ role, me, partner: 1 - me, rank, ep, tracker: new Tracker(rank, UCX_CQ_EP_FAILED) });
  rank.close();
  process.exit(0);
}

main().catch((e: unknown) => {
  report({ fatal: (e as Error).stack ?? String(e) });
  process.exit(1);
});
