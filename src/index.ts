/** tsmpi: an MPI runtime for Node.js. `import { MPI } from 'tsmpi'`. */
export { MPI, Comm, Intracomm, MPIException, Errhandler } from './mpir/index.js';
