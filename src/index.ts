/**
 * tsmpi: an MPI runtime for Node.js. `import { MPI } from 'tsmpi'`.
 * Comments cite research by short id (`003b §3.2`, `research 004`): docs/references.md names the works.
 */
export {
  MPI, Comm, Intracomm, Group, MPIException, Errhandler, Status, Request, Prequest, Grequest, Message, Datatype,
  Info, Intercomm, Win, File, Cartcomm, Graphcomm, Distgraphcomm, Session, type CopyFn, type DeleteFn, type ErrhandlerFunction,
} from './mpir/index.js';
export { Op, IN_PLACE } from './mpir/index.js';
/** The argument and result types of the public API (src/mpir/types.ts). */
export type {
  BufferLike, BufSpec, BufSpecV, BufSpecW, InPlace, InfoArg, IntList, ObjectRequest, Reduced, ReduceFunction, TargetSpec,
  TypedArray, UserFunction, Yield, GrequestQueryFn, GrequestFreeFn, GrequestCancelFn,
} from './mpir/index.js';
