import { declareInt } from '../common/config.js';

/** Bytes of each rank's ch_shmem segment. */
export const SHMEM_SEGMENT_BYTES = declareInt({
  name: 'TSMPI_SHMEM_SEGMENT_BYTES',
  layer: 'ch_shmem',
  description: "Size of each rank's shared segment (control cells, rings and eager buffers).",
  default: 64 * 1024,
  min: 4096,
  max: 1024 ** 3,
});
