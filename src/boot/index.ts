import os from 'node:os';
import { createTrace } from '../common/trace.js';
import { ranksOutnumberCores } from '../common/cores.js';
import { Doorbell, PeerBell } from '../common/doorbell.js';
import { jobIdFrom } from '../common/segment-names.js';
import { cardKey, decodeCard, encodeCard, type BusinessCard } from '../mpid/business-card.js';
import { ASYMMETRIC_FENCE, SCHED_BATCH, SLEEP_TIMEOUT_MS, SPIN_POLLS } from '../mpid/config.js';
import type { Device, DeviceDescriptor, DeviceWorld, OpenDevice } from '../mpid/device.js';
import { NO_MEMORY, type MemoryCapabilities, type RmaService } from '../mpid/memory.js';
import { localKernelId, localNodeId } from '../mpid/node-id.js';
import { connectProcessManager } from '../mpid/process-manager.js';
import { addon } from '../native/addon.js';
import { Progress } from '../mpid/progress.js';
import { asymmetricFenceFor, joinAsymmetricFence } from '../mpid/publish-fence.js';
import { World, type WorldParts } from '../mpid/world.js';
import { BootstrapError } from '../common/errors.js';
import { DEVICE } from './config.js';
import { DEVICES } from './devices.js';
import { checkRegistry, chooseDevices, forcedDevice } from './select.js';

const trace = createTrace('tsmpi:boot');

/**
 * Starts the world: the process manager, the rank's doorbell, the registered devices, a device
 * per peer. Sits above mpid and the devices (the only place that knows both), so that neither
 * imports the other.
 *
 *   open every registered device (each makes its resources, or declines) → put our card
 *   (node, pid, doorbell, one field per running device) → fence → get every card → choose a
 *   device per rank → attach the doorbells of ranks that share memory with us → connect each
 *   device to its peers → fence → drop the names peers needed (nothing stays in /dev/shm)
 *
 * A failure anywhere undoes what the devices made; so does an exit in the middle.
 */
export function bootstrap(env: NodeJS.ProcessEnv = process.env, registered: readonly DeviceDescriptor[] = DEVICES): World {
  checkRegistry(registered);
  const pm = connectProcessManager(env);
  // A rank a process manager started ends with it (SIGKILL from the kernel): a launcher killed
  // outright can no longer stop its ranks, and one blocked in a call would sleep on for good.
  if (pm.kind !== 'singleton') addon.endWithParent(process.ppid);
  const jobId = jobIdFrom(env, pm.kvsname);
  const forced = forcedDevice(DEVICE.read(env), registered);
  const spinPolls = SPIN_POLLS.read(env);
  const sleepTimeoutMs = SLEEP_TIMEOUT_MS.read(env);
  const doorbell = Doorbell.create(jobId, pm.rank);
  const opened: { readonly descriptor: DeviceDescriptor; readonly open: OpenDevice }[] = [];
  const undo = (): void => {
    for (const o of opened) o.open.abandon();
    doorbell.unlink();
  };
  process.once('exit', undo);
  try {
    const world: DeviceWorld = { rank: pm.rank, size: pm.size, jobId, env, forced: forced?.name ?? null, doorbell };
    const openAll = (which: readonly DeviceDescriptor[]): void => {
      for (const descriptor of which) {
        const open = descriptor.open(world);
        if (open !== null) opened.push({ descriptor, open });
      }
    };
    // On-demand devices wait for the cards to show they are needed, unless forced.
    openAll(registered.filter((d) => !d.onDemand || d === forced));
    const mine: BusinessCard = {
      rank: pm.rank, nodeId: localNodeId(env), kernelId: localKernelId(), pid: process.pid, bell: doorbell.name,
      fenceCores: joinAsymmetricFence(ASYMMETRIC_FENCE.read(env), os.availableParallelism()),
      devices: new Map(opened.map((o) => [o.descriptor.name, o.open.card])),
    };
    pm.put(cardKey(pm.rank), encodeCard(mine));
    pm.fence();
    let cards: BusinessCard[] = [];
    for (let r = 0; r < pm.size; r++) {
      if (r === pm.rank) {
        cards.push(mine);
        continue;
      }
      const text = pm.get(cardKey(r));
      if (text === undefined) throw new BootstrapError(`rank ${r} published no business card (key ${cardKey(r)})`);
      cards.push(decodeCard(r, text));
    }
    const onDemand = registered.filter((d) => d.onDemand && !opened.some((o) => o.descriptor === d));
    if (onDemand.length > 0 && someRankUnreachable(cards, opened.map((o) => o.descriptor), forced)) {
      // Every rank sees the same cards, so all take this second round (its fence is collective).
      const before = opened.length;
      openAll(onDemand);
      const late = new Map(opened.slice(before).map((o) => [o.descriptor.name, o.open.card]));
      pm.put(lateCardKey(pm.rank), encodeLateFields(late));
      pm.fence();
      cards = cards.map((c) => {
        const text = c.rank === pm.rank ? encodeLateFields(late) : pm.get(lateCardKey(c.rank));
        if (text === undefined) throw new BootstrapError(`rank ${c.rank} published no second card (key ${lateCardKey(c.rank)})`);
        return withLateFields(c, text);
      });
      trace('rank %d: second card exchange for %s', pm.rank, opened.slice(before).map((o) => o.descriptor.name).join(', ') || 'nothing');
    }
    // Ranks on this kernel, whatever device they use and whichever host name they see (emulated
    // hosts share one kernel's CPUs): what decides whether a wait may spin.
    const machineRanks = cards.filter((c) => c.kernelId === mine.kernelId).length;
    const spinBudget = Progress.spinBudgetFor(machineRanks, spinPolls);
    const batch = SCHED_BATCH.read(env);
    if (batch === '1' || (batch === 'auto' && ranksOutnumberCores(machineRanks))) addon.schedBatch();
    const plainPublish = asymmetricFenceFor(mine, cards);
    if (plainPublish) doorbell.fenceOthersBeforeSleep();
    let built: World | null = null;
    const fail = (error: Error): never => {
      built?.onDeviceFailure?.(error);
      throw error;
    };
    const chosen = chooseDevices(pm.rank, cards, opened.map((o) => o.descriptor), forced, registered);
    const bells = cards.map((c) => (c.rank !== pm.rank && chosen[c.rank]!.sharesMemory ? PeerBell.attach(c.bell, c.rank) : null));
    const devices: Device[] = [];
    const deviceOf = new Array<Device>(pm.size);
    let rma: { service: RmaService; caps: MemoryCapabilities } | null = null;
    for (const { descriptor, open } of opened) {
      const peers = cards.filter((c) => chosen[c.rank] === descriptor);
      const device = open.connect({ peers, cards, bellOf: (r) => bells[r] ?? null, spinBudget, plainPublish, fail });
      devices.push(device);
      for (const c of peers) deviceOf[c.rank] = device;
      if (rma === null && device.rma?.expose !== undefined) rma = { service: device.rma, caps: descriptor.memory ?? NO_MEMORY };
    }
    pm.fence();
    for (const o of opened) o.open.connected();
    doorbell.unlink();
    const carriers = new Map<Device, DeviceDescriptor>(devices.map((d, i) => [d, opened[i]!.descriptor]));
    const openRemote = (): ReturnType<WorldParts['openRemote']> => {
      for (const [device, descriptor] of carriers) {
        if (device.remote !== undefined) return { device, caps: descriptor.memory ?? NO_MEMORY };
      }
      // Opened now, whatever TSMPI_DEVICE forced for the world's ranks: it is the only way out of the job.
      const descriptor = registered.find((d) => d.reachesOtherJobs === true);
      const open = descriptor?.open({ ...world, forced: null }) ?? null;
      if (descriptor === undefined || open === null) return null;
      const device = open.connect({ peers: [], cards, bellOf: () => null, spinBudget, plainPublish: false, fail });
      open.connected();
      carriers.set(device, descriptor);
      trace('rank %d: %s opened for processes of other jobs', pm.rank, descriptor.name);
      return { device, caps: descriptor.memory ?? NO_MEMORY };
    };
    trace('rank %d of %d on %s: %s; publish with %s stores', pm.rank, pm.size, mine.nodeId,
      opened.map((o) => `${o.descriptor.name} ${chosen.filter((d) => d === o.descriptor).length}`).join(', '),
      plainPublish ? 'plain' : 'locked');
    return built = new World({
      pm, jobId, cards, devices, deviceOf, bells,
      sharesMemory: chosen.map((d) => d.sharesMemory),
      memoryOf: chosen.map((d) => d.memory ?? NO_MEMORY),
      nodeMemory: nodeMemoryOf(registered),
      rma,
      nodesUseSharedMemory: forced === null,
      doorbell,
      spinBudget,
      sleepTimeoutMs,
      plainPublish,
      openRemote,
    });
  } catch (e) {
    undo();
    throw e;
  } finally {
    process.off('exit', undo);
  }
}

/**
 * Whether the devices opened so far leave some pair of ranks without a device (the cards decide,
 * so every rank answers alike). Ranks with the same node and the same devices answer alike, so
 * one rank of each kind stands for all.
 */
function someRankUnreachable(cards: readonly BusinessCard[], running: readonly DeviceDescriptor[],
                             forced: DeviceDescriptor | null): boolean {
  const kinds = new Map<string, { card: BusinessCard; ranks: number }>();
  for (const c of cards) {
    const key = `${c.nodeId} ${[...c.devices.keys()].sort().join(' ')}`;
    const kind = kinds.get(key);
    if (kind === undefined) kinds.set(key, { card: c, ranks: 1 });
    else kind.ranks++;
  }
  const reaches = (a: BusinessCard, b: BusinessCard): boolean => forced !== null
    ? forced.reachable(a, b)
    : running.some((d) => d.reachable(a, b) && d.reachable(b, a));
  for (const a of kinds.values()) {
    for (const b of kinds.values()) {
      // Two ranks of one kind: a stand-in card with another rank number asks the devices.
      if (a === b ? a.ranks > 1 && !reaches(a.card, { ...a.card, rank: -1 }) : !reaches(a.card, b.card)) return true;
    }
  }
  return false;
}

/** Key of a rank's second card (on-demand devices' fields only). */
function lateCardKey(rank: number): string {
  return `tsmpi-card2-${rank}`;
}

function encodeLateFields(fields: ReadonlyMap<string, string>): string {
  return ['v=2', ...[...fields].map(([name, field]) => `${name}=${field}`)].join(',');
}

function withLateFields(card: BusinessCard, text: string): BusinessCard {
  const devices = new Map(card.devices);
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq) !== 'v') devices.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return { ...card, devices };
}

/**
 * The node's shared memory, from the first registered device that offers it: the node's, not a
 * connection's, so it is there whether or not that device carries messages (TSMPI_DEVICE=sci).
 */
function nodeMemoryOf(registered: readonly DeviceDescriptor[]): WorldParts['nodeMemory'] {
  const d = registered.find((r) => r.nodeMemory !== undefined);
  return d !== undefined ? { service: d.nodeMemory!, caps: d.memory ?? NO_MEMORY } : null;
}
