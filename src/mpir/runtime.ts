import { ConfigError, PmiError, BootstrapError, RmaAttachError, RmaSyncError, TsmpiError } from '../common/errors.js';
import { tagTraceWithRank } from '../common/trace-rank.js';
import { bootstrap } from '../boot/index.js';
import type { World } from '../mpid/world.js';
import { armStateRequestBell } from '../mpid/state-request.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { installStateReport } from './state-report.js';
import { refuseWorkerThread } from './threads.js';
import { reportStatistics } from './tools/report.js';
import { bindToolsWorld } from './tools/world-binding.js';

type Phase = 'before-init' | 'running' | 'finalized';

/**
 * The process-wide MPI state: one World between Init and Finalize. Every public call asks
 * `requireRunning(call)` first, so a call out of phase names itself in the error.
 */
class Runtime {
  phase: Phase = 'before-init';
  private current: World | null = null;

  requireRunning(call: string): World {
    if (this.phase === 'running') return this.current!;
    if (this.phase === 'before-init') {
      refuseWorkerThread(call);
      throw new MPIException(ErrorClass.ERR_OTHER, `${call}: called before MPI.Init (call MPI.Init() first)`);
    }
    throw new MPIException(ErrorClass.ERR_OTHER, `${call}: called after MPI.Finalize`);
  }

  start(call: string): World {
    if (this.phase === 'running') throw new MPIException(ErrorClass.ERR_OTHER, `${call}: MPI is already initialized`);
    if (this.phase === 'finalized') throw new MPIException(ErrorClass.ERR_OTHER, `${call}: MPI cannot be initialized again after MPI.Finalize`);
    // Before bootstrap, so a rank whose card the launcher sees (it carries the pid the launcher
    // signals) always answers state requests (state-report.ts).
    installStateReport(() => this.current, () => this.phase);
    try {
      this.current = bootstrap();
    } catch (e) {
      throw toMPIException(call, e);
    }
    bindToolsWorld(this.current);
    tagTraceWithRank(this.current.rank);
    armStateRequestBell(this.current.doorbell);
    this.phase = 'running';
    return this.current;
  }

  /** Who holds MPI open: the World Model (MPI.Init) and each live Session. */
  private holders = 0;

  /**
   * MPI.Init or MPI.Session.Init: starts MPI, or joins it while another holder keeps it running.
   * MPI starts once per process: after the last holder let go it cannot start again.
   */
  hold(call: string): World {
    if (this.phase === 'running') {
      this.holders++;
      return this.current!;
    }
    if (this.phase === 'finalized') {
      throw new MPIException(ErrorClass.ERR_OTHER, `${call}: MPI cannot be initialized again after MPI.Finalize ` +
        'or the last Session.Finalize of this process');
    }
    const world = this.start(call);
    this.holders = 1;
    return world;
  }

  /**
   * The end of one holder (MPI.Finalize, Session.Finalize). The last one stops MPI, after
   * `drain(world)`: what must happen while MPI still runs (a barrier that progresses sends).
   */
  release(call: string, drain: (world: World) => void): void {
    const world = this.requireRunning(call);
    if (this.holders > 1) {
      this.holders--;
      return;
    }
    drain(world);
    this.holders = 0;
    this.stop(call);
  }

  stop(call: string): void {
    const world = this.requireRunning(call);
    try {
      reportStatistics(world);
      world.finalize();
    } catch (e) {
      throw toMPIException(call, e);
    } finally {
      armStateRequestBell(null);
      this.phase = 'finalized';
      this.current = null;
    }
  }
}

export const runtime = new Runtime();

/** The one place where internal errors become MPI error classes. */
export function toMPIException(call: string, e: unknown): MPIException {
  if (e instanceof MPIException) return e;
  let errorClass: number = ErrorClass.ERR_INTERN;
  if (e instanceof ConfigError) errorClass = ErrorClass.ERR_ARG;
  else if (e instanceof PmiError || e instanceof BootstrapError) errorClass = ErrorClass.ERR_OTHER;
  else if (e instanceof RmaSyncError) errorClass = ErrorClass.ERR_RMA_SYNC;
  else if (e instanceof RmaAttachError) errorClass = ErrorClass.ERR_RMA_ATTACH;
  else if (e instanceof TsmpiError) errorClass = ErrorClass.ERR_OTHER;
  const message = e instanceof Error ? e.message : String(e);
  return new MPIException(errorClass, `${call}: ${message}`, { cause: e });
}
