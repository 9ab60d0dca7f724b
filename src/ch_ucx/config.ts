import { declareInt } from '../common/config.js';

/**
 * Largest message ch_ucx sends eagerly (one UCX active message carrying the data, copied at
 * the receiver); larger ones go by UCX's zero-copy rendezvous into the matched receive buffer.
 */
export const UCX_EAGER_MAX = declareInt({
  name: 'TSMPI_UCX_EAGER_MAX', layer: 'ch_ucx',
  description: 'Largest message (bytes) ch_ucx sends eagerly; larger messages move by UCX rendezvous, ' +
    'zero-copy into the matched receive buffer.',
  default: 64 * 1024, min: 0, max: 16 * 1024 * 1024,
});

/** Send buffers for eager messages UCX could not take at once (each TSMPI_UCX_EAGER_MAX bytes, made on first use). */
export const UCX_STAGING = declareInt({
  name: 'TSMPI_UCX_STAGING', layer: 'ch_ucx',
  description: 'Eager messages per rank that may wait inside UCX (copied to a staging buffer); beyond that a ' +
    'message goes by rendezvous.',
  default: 64, min: 1, max: 4096,
});

export interface UcxConfig {
  readonly eagerMax: number;
  readonly staging: number;
}

export function readUcxConfig(env: NodeJS.ProcessEnv): UcxConfig {
  return { eagerMax: UCX_EAGER_MAX.read(env), staging: UCX_STAGING.read(env) };
}
