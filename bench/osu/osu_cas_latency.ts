/** OMB's osu_cas_latency on tsmpi: see bench/osu/rma.ts for options, method and output. */
import { runRma } from './rma.js';

runRma('cas_latency');
