/** OMB's osu_acc_latency on tsmpi: see bench/osu/rma.ts for options, method and output. */
import { runRma } from './rma.js';

runRma('acc_latency');
