/**
 * Loads every layer's tunable declarations, so that the registry in common/config.ts is
 * complete for `tsmpiexec --help-env` and for the README table (scripts/env-table.mjs).
 */
import './ch_shmem/config.js';
import './mpid/config.js';
import './mpir/config.js';
import './sisci/config.js';
import './boot/config.js';
import './ch_sci/config.js';
import './ch_ucx/config.js';
import './mpir/tools/config.js';
import './loader/config.js';
