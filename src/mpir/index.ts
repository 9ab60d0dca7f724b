export { MPI } from './mpi.js';
export { Comm, Intracomm } from './comm.js';
export { MPIException } from './exception.js';
export { Errhandler } from './errhandler.js';
