import type { World } from '../../mpid/world.js';
import type { Comm } from '../comm.js';
import { ErrorClass } from '../error-classes.js';
import { Prequest } from '../request.js';
import { type Schedule, launch } from './schedule.js';

/**
 * A persistent collective's request (MPI-4 §6.13: Bcast_init, Allreduce_init, ...). The
 * schedule was built once, at the *_init call (algorithm, peers, tag, scratch buffers); each
 * Start runs it again (schedule.ts: its prepare steps read the user's buffers then), and
 * Wait/Test complete the run as for a non-blocking collective. The request stays valid until
 * Free, which MPI allows only while it is inactive.
 */
export class CollPrequest extends Prequest {
  /** @internal Persistent collective requests come from the *_init calls of the collectives. */
  constructor(private readonly schedule: Schedule, comm: Comm, private readonly call: string, world: World) {
    super(comm, () => {
      launch(world, schedule);
      return schedule.request;
    }, call);
  }

  /** MPI does not allow cancelling a collective: raises MPI.ERR_REQUEST. */
  override Cancel(): void {
    this.comm!.fail(`${this.call} request.Cancel`, ErrorClass.ERR_REQUEST,
      'a persistent collective cannot be cancelled (MPI-4 §6.13); complete it with Wait or Test');
  }

  /** Frees the request; raises MPI.ERR_REQUEST while a run is active (MPI-4 §6.13). */
  override Free(): void {
    if (this.active) {
      this.comm!.fail(`${this.call} request.Free`, ErrorClass.ERR_REQUEST,
        'the persistent collective is active (started and not completed); complete it with Wait or Test before Free');
    }
    super.Free();
  }

  /** @internal */
  protected override onInactive(): void {
    const e = this.schedule.error;
    if (e !== null) this.comm!.fail(this.call, e.error_class, e.message);
  }
}
