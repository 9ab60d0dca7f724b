import { declareInt } from '../common/config.js';

/**
 * Largest message ch_ucx sends eagerly (one UCX active message carrying the data, copied at
 * the receiver); larger ones go by UCX's rendezvous into the matched receive buffer. 128 KiB,
 * with UCX's tcp segment sized to match (rxSegmentBytes below): between two emulated hosts,
 * medians of six alternating runs, osu_bw gave 3795 / 3873 / 4188 / 4499 MB/s at 128 KiB /
 * 256 KiB / 512 KiB / 1 MiB against 2867 / 2407 / 2458 / 2532 with a 256 KiB limit (MPICH 2735 /
 * 3692 / 2367 / 2296), and osu_latency 25 / 61 / 120 µs at 128 / 256 / 512 KiB against 122 / 116
 * / 147 (MPICH 41 / 57 / 236): UCX's rendezvous moves the larger messages in segments of the
 * same size, and a smaller segment pool stays in cache.
 */
export const UCX_EAGER_MAX = declareInt({
  name: 'TSMPI_UCX_EAGER_MAX', layer: 'ch_ucx',
  description: 'Largest message (bytes) ch_ucx sends eagerly; larger messages move by UCX rendezvous ' +
    'straight into the matched receive buffer (zero-copy where the transport has RMA).',
  default: 128 * 1024, min: 0, max: 16 * 1024 * 1024,
});

/**
 * Derived datatypes whose contiguous pieces average at least this many bytes move as UCX iov
 * lists in a rendezvous (UCX gathers them at the sender and scatters them at the receiver, no
 * copy of ours); others are packed into one buffer and unpacked from one. Off by default: over
 * tcp UCX moves an iov rendezvous by its slower fragmented path, and osu_vector_bw between two
 * emulated hosts (1 MiB of 64 B-64 KiB blocks) gave 860-1160 MB/s with iov lists against
 * 1460-1900 packed. Transports that gather iov lists in hardware (InfiniBand's rc) may gain.
 */
export const UCX_IOV_MIN = declareInt({
  name: 'TSMPI_UCX_IOV_MIN', layer: 'ch_ucx',
  description: 'Smallest mean contiguous piece (bytes) of a derived datatype that ch_ucx moves as a UCX iov list in a ' +
    'rendezvous instead of packing it; 0 (the default) always packs, which is faster over tcp.',
  default: 0, min: 0, max: 1 << 30,
});

/** Send buffers for eager messages UCX could not take at once (each TSMPI_UCX_EAGER_MAX bytes, made on first use). */
export const UCX_STAGING = declareInt({
  name: 'TSMPI_UCX_STAGING', layer: 'ch_ucx',
  description: 'Eager messages per rank that may wait inside UCX (copied to a staging buffer); beyond that a ' +
    'message goes by rendezvous.',
  default: 64, min: 1, max: 4096,
});

/**
 * The peer watch (native/src/ucx_watch.cc): each rank beats to its successor in rank order and
 * watches its predecessor, where UCX carries the pair; silence for this long ends the job with
 * the silent rank and its host named, whatever TCP is doing (a connection with data in flight
 * at a cut retransmits for about 15 minutes before TCP gives up). Beats go every quarter of it.
 */
export const UCX_PEER_TIMEOUT = declareInt({
  name: 'TSMPI_UCX_PEER_TIMEOUT', layer: 'ch_ucx',
  description: 'Milliseconds without a heartbeat after which a rank reached over UCX counts as lost (its host ' +
    'dropped off the network); heartbeats go every quarter of it. 0 turns the watch off.',
  default: 8000, min: 0, max: 86_400_000,
});

export interface UcxConfig {
  readonly eagerMax: number;
  readonly staging: number;
  /** Derived datatypes with pieces of at least this mean size move as UCX iov lists; 0: never. */
  readonly iovMin: number;
  /** Milliseconds of silence before a watched peer counts as lost; 0: no watch. */
  readonly peerTimeoutMs: number;
}

export function readUcxConfig(env: NodeJS.ProcessEnv): UcxConfig {
  return {
    eagerMax: UCX_EAGER_MAX.read(env), staging: UCX_STAGING.read(env), iovMin: UCX_IOV_MIN.read(env),
    peerTimeoutMs: UCX_PEER_TIMEOUT.read(env),
  };
}

/**
 * UCX settings tsmpi chooses when the user has not. With UCX's own defaults a rank waiting for
 * a peer on a host that dropped off the network waits for minutes: TCP sends keepalive probes
 * only after 10 s idle, and UCP's keepalive (a message every 20 s per endpoint) puts data on
 * the socket, which turns TCP's keepalive off and leaves the connection retransmitting for
 * net.ipv4.tcp_retries2 (about 15 minutes). So UCP's keepalive is off, and TCP's probes start
 * after 2 s idle, every second, three of them: the endpoint to a lost host fails about 5 s
 * after the link went down (UCS_ERR_ENDPOINT_TIMEOUT), and the waiting rank gets PeerLostError
 * naming the host. (Data already in flight at the cut is retransmitted instead, and TCP gives up
 * only after tcp_retries2: the peer watch, UCX_PEER_TIMEOUT above, notices that case.)
 * UCX_TLS leaves out shared-memory transports: ch_shmem carries the ranks of one host, and UCX
 * decides "same machine" by boot id, which containers and namespaces share.
 */
export const UCX_ENV_DEFAULTS: Readonly<Record<string, string>> = {
  UCX_TLS: '^sm',
  UCX_KEEPALIVE_INTERVAL: 'inf',
  UCX_TCP_KEEPIDLE: '2s',
  UCX_TCP_KEEPINTVL: '1s',
  UCX_TCP_KEEPCNT: '3',
};

/**
 * UCX's tcp transport receives a message in segments of UCX_TCP_RX_SEG_SIZE (64 KiB by
 * default), and UCP assembles a message of several segments in a buffer of its own (a malloc
 * and a copy) before the handler sees it; a message of one segment is handed over in the
 * receive buffer itself. So ch_ucx sizes the segment to hold its largest eager message with
 * its headers: an eager message then costs the receiver one copy (into the matched buffer), as
 * MPICH's tagged eager receive does. Between two emulated hosts osu_bw's median over six
 * alternating runs rose from 2214 to 3298 MB/s at 64 KiB and from 2372 to 4464 at 128 KiB (MPICH
 * 1744 and 2701 in the same runs). The pool grows by 8 segments per transport (~1 MiB at the
 * default eager limit); past an eager limit of 1 MiB the segment stays at 1 MiB + 4 KiB.
 */
export function rxSegmentBytes(eagerMax: number): number {
  return Math.max(64 * 1024, Math.min(eagerMax, 1 << 20) + 4096);
}

/**
 * Sets each of UCX_ENV_DEFAULTS (and the tcp segment size for `eagerMax`) in `target` (the
 * process environment, which UCX reads when its context is created) unless the user set it, in
 * the job's environment or in this process's.
 */
export function applyUcxEnvDefaults(jobEnv: NodeJS.ProcessEnv, eagerMax: number, target: NodeJS.ProcessEnv = process.env): void {
  const defaults: Record<string, string> = { ...UCX_ENV_DEFAULTS, UCX_TCP_RX_SEG_SIZE: `${rxSegmentBytes(eagerMax)}` };
  for (const [name, value] of Object.entries(defaults)) {
    if (jobEnv[name] === undefined && target[name] === undefined) target[name] = value;
  }
}
