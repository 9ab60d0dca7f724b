import type { WindowComm, WindowHooks, WindowSettings } from '../../osc/index.js';
import { abortJob } from '../abort.js';
import { finishUnpack } from '../buffer.js';
import type { CommCore, Intracomm } from '../comm.js';
import { RMA_GATHER_MAX, RMA_LOCK_POLICY, RMA_METHOD, RMA_PSCW, RMA_REMOTE_PUT_MIN } from '../config.js';
import { opReducer } from './element-codes.js';

/**
 * What the API face gives the window layer (src/osc) when it makes a window, so that osc
 * imports nothing of mpir: its group's collectives, the TSMPI_RMA_* settings, and the hooks
 * through which osc reduces with an Op, unpacks a result into a user's datatype and ends the job.
 */

/** Two duplicates of the window's communicator (requests, replies) and three collectives on the first. */
export function windowComm(req: Intracomm, reqCore: CommCore, reply: Intracomm, replyCore: CommCore): WindowComm {
  return {
    rank: reqCore.rank, size: reqCore.size, worldRanks: reqCore.worldRanks, requestCtx: reqCore.ctx, replyCtx: replyCore.ctx,
    barrier: () => req.Barrier(),
    allgather: (mine, all) => req.Allgather(mine, all),
    bcastName: (name, root) => req.bcast(name, root) as string,
    free: () => {
      req.Free();
      reply.Free();
    },
  };
}

export function readWindowSettings(): WindowSettings {
  return {
    method: RMA_METHOD.read(),
    gatherMax: RMA_GATHER_MAX.read(),
    lockPolicy: RMA_LOCK_POLICY.read(),
    loosePscw: RMA_PSCW.read() === 'loose',
    remotePutMin: RMA_REMOTE_PUT_MIN.read(),
  };
}

export const WINDOW_HOOKS: WindowHooks = {
  reducer: opReducer,
  replyArrived: finishUnpack,
  fatal: (message) => abortJob(1, message),
};
