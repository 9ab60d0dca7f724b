/** tsmpi: an MPI runtime for Node.js. `import { MPI } from 'tsmpi'`. */
export {
  MPI, Comm, Intracomm, Group, MPIException, Errhandler, Status, Request, Prequest, Message, Datatype,
  Info, Intercomm, Win, Cartcomm, Graphcomm, Distgraphcomm, type CopyFn, type DeleteFn,
} from './mpir/index.js';
export { Op, IN_PLACE } from './mpir/index.js';
