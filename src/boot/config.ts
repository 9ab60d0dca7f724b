import { declareChoice } from '../common/config.js';

/**
 * Bootstrap's tunable. Its layer stays 'mpid', where it was declared before the device
 * registry moved out of mpid, so `tsmpiexec --help-env` and the README table are unchanged.
 * Each value but auto is the `forcedBy` of one registered device (src/boot/devices.ts).
 */
export const DEVICE = declareChoice({
  name: 'TSMPI_DEVICE', layer: 'mpid',
  description: 'Which device carries messages between different ranks: auto (ch_shmem within a node, ch_sci between ' +
    'SCI nodes, ch_ucx between hosts) or sci / ucx (everything through ch_sci or ch_ucx, even ranks of one node; for ' +
    'testing and measuring those paths).',
  default: 'auto', choices: ['auto', 'sci', 'ucx'] as const,
});
