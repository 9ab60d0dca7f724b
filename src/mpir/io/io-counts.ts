import { counterSpec, type PvarTable } from '../../mpid/pvars.js';

/** This rank's file system calls of MPI.File (independent.ts counts them: one increment per pread/pwrite). */
export const ioCounts = { writes: 0, writeBytes: 0, reads: 0, readBytes: 0 };

const C = 'io';

/**
 * The counts as MPI.T performance variables (io_file_writes, ...): what shows that two-phase I/O
 * turned many small strided accesses into few large ones.
 */
export const IO_PVARS: PvarTable<typeof ioCounts> = {
  category: C,
  description: 'MPI.File: the reads and writes this rank made to files (positional fs calls)',
  variables: [
    counterSpec(C, 'file_writes', 'calls', 'positional writes to files (pwrite)', (c) => c.writes),
    counterSpec(C, 'file_write_bytes', 'bytes', 'bytes written to files', (c) => c.writeBytes),
    counterSpec(C, 'file_reads', 'calls', 'positional reads from files (pread)', (c) => c.reads),
    counterSpec(C, 'file_read_bytes', 'bytes', 'bytes read from files', (c) => c.readBytes),
  ],
};
