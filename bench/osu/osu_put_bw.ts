/** OMB's osu_put_bw on tsmpi: see bench/osu/rma.ts for options, method and output. */
import { runRma } from './rma.js';

runRma('put_bw');
