/**
 * The cohort family of the lock library (research 000 §2.9, §2.10; see src/locks/index.ts and
 * docs/locks-cohort.md): C-Global-Local for global ∈ {TAS, TKT, MCS} × local ∈ {TTS, TKT,
 * MCS}, C-MCS-CLH and C-MCS-HEM (Hemlock variants), and the pass-counter variants of C-MCS-MCS.
 *
 * Parameters (all locks): maxLocalPasses (50), counter (0 inline, 1 global, 2 node, 3 direct);
 * global TAS: tasBackoffMin/Max (1/32 pauses); local TTS: ttsBackoffMin/Max (1/16 pauses);
 * Hemlock: hem (0 base, 1 overlap, 2 ctr, 3 ctr-ah), hemInline (1: grant = status byte, 0:
 * grant = lock id + separate status word).
 *
 * Research ids cited here: see docs/references.md.
 */
import type { LockContext } from '../context.js';
import type { LockParams, LockSpec } from '../lock.js';
import { CohortLock, COUNTER_DIRECT, COUNTER_GLOBAL, COUNTER_INLINE, COUNTER_NODE, DEFAULT_MAX_LOCAL_PASSES } from './cohort.js';
import { GlobalMcs, GlobalTas, GlobalTkt } from './global.js';
import { HEM_BASE, HEM_CTR, HEM_CTR_AH, HEM_OVERLAP, LocalHemlock } from './hemlock.js';
import type { GlobalLevel, LocalLevel } from './levels.js';
import { LocalClh, LocalMcs, LocalTkt, LocalTts } from './local.js';

type G = 'tas' | 'tkt' | 'mcs';
type L = 'tts' | 'tkt' | 'mcs' | 'clh' | 'hem';

const BASE_DEFAULTS = { maxLocalPasses: DEFAULT_MAX_LOCAL_PASSES, counter: COUNTER_INLINE };

function makeGlobal(g: G, ctx: LockContext, p: LockParams): GlobalLevel {
  const w = ctx.waiter();
  switch (g) {
    case 'tas': return new GlobalTas(ctx, w, p.tasBackoffMin ?? 1, p.tasBackoffMax ?? 32);
    case 'tkt': return new GlobalTkt(ctx, w);
    default: return new GlobalMcs(ctx, w);
  }
}

function makeLocal(l: L, ctx: LockContext, p: LockParams): LocalLevel {
  const w = ctx.waiter();
  switch (l) {
    case 'tts': return new LocalTts(ctx, w, p.ttsBackoffMin ?? 1, p.ttsBackoffMax ?? 16);
    case 'tkt': return new LocalTkt(ctx, w);
    case 'mcs': return new LocalMcs(ctx, w);
    case 'clh': return new LocalClh(ctx, w);
    default: return new LocalHemlock(ctx, w, p.hem ?? HEM_CTR_AH, (p.hemInline ?? 1) !== 0);
  }
}

const UPPER: Record<string, string> = { tas: 'TAS', tkt: 'TKT', mcs: 'MCS', tts: 'TTS', clh: 'CLH', hem: 'HEM' };

function spec(name: string, g: G, l: L, description: string, extra: LockParams = {}): LockSpec {
  const defaults: LockParams = {
    ...BASE_DEFAULTS,
    ...(g === 'tas' ? { tasBackoffMin: 1, tasBackoffMax: 32 } : {}),
    ...(l === 'tts' ? { ttsBackoffMin: 1, ttsBackoffMax: 16 } : {}),
    ...(l === 'hem' ? { hem: HEM_CTR_AH, hemInline: 1 } : {}),
    ...extra,
  };
  return {
    name,
    family: 'cohort',
    description,
    rw: false,
    tryable: false,
    hierarchical: true,
    defaults,
    make: (ctx, params) => {
      const p = { ...defaults, ...(params ?? {}) };
      // Levels in the same order on every rank (each is collective).
      const global = makeGlobal(g, ctx, p);
      const local = makeLocal(l, ctx, p);
      return new CohortLock(name, ctx, global, local, p);
    },
  };
}

const NINE: LockSpec[] = [];
for (const g of ['tas', 'tkt', 'mcs'] as const) {
  for (const l of ['tts', 'tkt', 'mcs'] as const) {
    NINE.push(spec(`cohort-${g}-${l}`, g, l,
      `C-${UPPER[g]}-${UPPER[l]}: global ${UPPER[g]} over RMA × local ${UPPER[l]} in node-shared memory, inline pass counter (research 000 §2.9)`));
  }
}

export const COHORT_LOCKS: readonly LockSpec[] = [
  ...NINE,
  spec('cohort-mcs-mcs-global-counter', 'mcs', 'mcs', 'C-MCS-MCS with one pass counter at rank 0 over RMA ([DMS12]; research 000 §2.9)',
    { counter: COUNTER_GLOBAL }),
  spec('cohort-mcs-mcs-node-counter', 'mcs', 'mcs', 'C-MCS-MCS with a per-node pass counter over RMA (Opt. 1; research 000 §2.9)',
    { counter: COUNTER_NODE }),
  spec('cohort-mcs-mcs-direct-counter', 'mcs', 'mcs', 'C-MCS-MCS with a per-node pass counter in shared memory (Opt. 2; research 000 §2.9)',
    { counter: COUNTER_DIRECT }),
  spec('cohort-mcs-clh', 'mcs', 'clh', 'C-MCS-CLH: global p2p MCS (Opt. 4) × local CLH, inline pass counter (research 000 §2.8, §2.9)'),
  spec('cohort-mcs-hem', 'mcs', 'hem', 'C-MCS-HEM: global p2p MCS × local Hemlock CTR+AH with the inline counter (research 000 §2.10)'),
  spec('cohort-mcs-hem-base', 'mcs', 'hem', 'C-MCS-HEM, base Hemlock: lock-id grant, separate status word (research 000 §2.10)',
    { hem: HEM_BASE, hemInline: 0 }),
  spec('cohort-mcs-hem-overlap', 'mcs', 'hem', 'C-MCS-HEM, Hemlock Overlap (v4 fix), lock-id grant (research 000 §2.10)',
    { hem: HEM_OVERLAP, hemInline: 0 }),
  spec('cohort-mcs-hem-ctr', 'mcs', 'hem', 'C-MCS-HEM, Hemlock CTR, lock-id grant (research 000 §2.10)', { hem: HEM_CTR, hemInline: 0 }),
  spec('cohort-mcs-hem-ctr-ah', 'mcs', 'hem', 'C-MCS-HEM, Hemlock CTR+AH, lock-id grant (research 000 §2.10)',
    { hem: HEM_CTR_AH, hemInline: 0 }),
];
