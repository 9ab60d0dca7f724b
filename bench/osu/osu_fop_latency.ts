/** OMB's osu_fop_latency on tsmpi: see bench/osu/rma.ts for options, method and output. */
import { runRma } from './rma.js';

runRma('fop_latency');
