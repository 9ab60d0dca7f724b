/** OMB's osu_get_latency on tsmpi: see bench/osu/rma.ts for options, method and output. */
import { runRma } from './rma.js';

runRma('get_latency');
