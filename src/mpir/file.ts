import { Errhandler, type ErrhandlerFunction } from './errhandler.js';
import { UNSUPPORTED, unsupportedCall } from './unsupported.js';

/** File methods: each raises MPI.ERR_UNSUPPORTED_OPERATION until MPI-IO exists (issue 18). */
const FILE_METHODS = [
  'Close', 'Set_size', 'Preallocate', 'Get_size', 'Get_amode', 'Get_group', 'Set_info', 'Get_info',
  'Set_view', 'Get_view', 'Read_at', 'Read_at_all', 'Write_at', 'Write_at_all', 'Iread_at',
  'Iread_at_all', 'Iwrite_at', 'Iwrite_at_all', 'Read', 'Read_all', 'Write', 'Write_all', 'Iread',
  'Iread_all', 'Iwrite', 'Iwrite_all', 'Seek', 'Get_position', 'Get_byte_offset', 'Read_shared',
  'Write_shared', 'Iread_shared', 'Iwrite_shared', 'Read_ordered', 'Write_ordered', 'Seek_shared',
  'Get_position_shared', 'Read_at_all_begin', 'Read_at_all_end', 'Write_at_all_begin',
  'Write_at_all_end', 'Read_all_begin', 'Read_all_end', 'Write_all_begin', 'Write_all_end',
  'Read_ordered_begin', 'Read_ordered_end', 'Write_ordered_begin', 'Write_ordered_end',
  'Get_type_extent', 'Set_atomicity', 'Get_atomicity', 'Sync', 'Get_errhandler', 'Set_errhandler',
  'Call_errhandler',
] as const;

type FileMethod = (typeof FILE_METHODS)[number];

/**
 * MPI.File, mpi4py's names: MPI-IO is not implemented yet, so MPI.File.Open, MPI.File.Delete
 * and every method raise MPI.ERR_UNSUPPORTED_OPERATION (a File can therefore not be made; the
 * methods exist so that no name is undefined). File.Create_errhandler works: it makes a handler
 * for files, which no other kind of object takes.
 */
export class File {
  private constructor() {}

  static Open = unsupportedCall('MPI.File.Open', UNSUPPORTED.io);
  static Delete = unsupportedCall('MPI.File.Delete', UNSUPPORTED.io);
  /** A handler for files that calls `fn(file, errorcode)`. */
  static Create_errhandler(fn: ErrhandlerFunction<File>): Errhandler {
    return Errhandler.user('file', 'MPI.File.Create_errhandler', fn);
  }
}

export interface File extends Record<FileMethod, (...args: unknown[]) => never> {}

for (const name of FILE_METHODS) {
  Object.defineProperty(File.prototype, name, { value: unsupportedCall(`File.${name}`, UNSUPPORTED.io), writable: true, configurable: true });
}
