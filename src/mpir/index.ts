export { MPI } from './mpi.js';
export { Comm, Intracomm } from './comm.js';
export { Group } from './group.js';
export { MPIException } from './exception.js';
export { Errhandler } from './errhandler.js';
export { Status } from './status.js';
export { Request, Prequest, Message } from './request.js';
export { Datatype } from './datatype.js';
