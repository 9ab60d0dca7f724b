/** OMB's osu_put_latency on tsmpi: see bench/osu/rma.ts for options, method and output. */
import { runRma } from './rma.js';

runRma('put_latency');
