import './persistent-coll.js';
import './isendrecv.js';
import './partitioned.js';
export { MPI } from './mpi.js';
export { Op } from './op.js';
export { IN_PLACE } from './in-place.js';
export { Comm, Intracomm } from './comm.js';
export { Group } from './group.js';
export { MPIException } from './exception.js';
export { Errhandler, type ErrhandlerFunction } from './errhandler.js';
export { Session } from './session.js';
export { Status } from './status.js';
export { Request, Prequest, Message, type ObjectRequest, type Yield } from './request.js';
export { Grequest, type GrequestQueryFn, type GrequestFreeFn, type GrequestCancelFn } from './grequest.js';
export { Datatype } from './datatype.js';
export { Info } from './info.js';
export { Win } from './rma/win.js';
export { File } from './file.js';
export { Intercomm } from './intercomm.js';
export { Cartcomm, Graphcomm, Distgraphcomm } from './topo/index.js';
export type { AttrKind, CopyFn, DeleteFn } from './attributes.js';
export type {
  BufferLike, BufSpec, BufSpecV, BufSpecW, InPlace, InfoArg, IntList, Reduced, ReduceFunction, TargetSpec, TypedArray,
  UserFunction,
} from './types.js';
