/**
 * A rank that does what its arguments say, for the launcher tests:
 *   behave <action> [rank]    action applies to `rank` (default: every rank)
 * actions: exit3 (exit with status 3 after Init), hang (wait forever after Init), abort7
 * (MPI.Abort with 7), fatal (an invalid Send under MPI.ERRORS_ARE_FATAL), no-finalize (exit 0 without Finalize), segment-hang (create a job
 * segment that is never unlinked, then hang), chatter (print many long lines), env (print
 * TSMPI_TEST_VALUE), ok (Init, Finalize). Ranks not named by `rank` Init, then hang when the
 * action is a failure (so the launcher must stop them) or finish normally otherwise.
 */
import { MPI } from '../../../src/index.js';
import { addon } from '../../../src/native/addon.js';
import { jobIdFrom, segmentName } from '../../../src/common/segment-names.js';

const [action = 'ok', who] = process.argv.slice(2);
MPI.Init();
const rank = MPI.COMM_WORLD.rank;
const me = who === undefined || Number(who) === rank;
const hangForever = () => setInterval(() => {}, 1 << 30);
console.log(`rank ${rank} pid ${process.pid} ready`);

switch (me ? action : (['exit3', 'abort7', 'fatal', 'hang', 'segment-hang'].includes(action) ? 'hang' : 'ok')) {
  case 'exit3':
    process.exit(3);
    break;
  case 'abort7':
    MPI.Abort(MPI.COMM_WORLD, 7);
    break;
  case 'fatal':
    // The default handler, MPI.ERRORS_ARE_FATAL, ends the job with the error's message.
    MPI.COMM_WORLD.Send(new Uint8Array(1), 99);
    break;
  case 'hang':
    hangForever();
    break;
  case 'no-finalize':
    process.exit(0);
    break;
  case 'segment-hang': {
    const name = segmentName(jobIdFrom(process.env, null), rank, 'leak');
    addon.shmCreate(name, 1 << 20);
    console.log(`rank ${rank} segment ${name}`);
    hangForever();
    break;
  }
  case 'chatter': {
    const line = `rank ${rank} `.padEnd(3000, String(rank));
    for (let i = 0; i < 500; i++) process.stdout.write(`${line}\n`);
    MPI.Finalize();
    break;
  }
  case 'env':
    console.log(`rank ${rank} value ${process.env.TSMPI_TEST_VALUE}`);
    MPI.Finalize();
    break;
  default:
    MPI.Finalize();
}
