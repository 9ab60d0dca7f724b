/**
 * MPI-IO constants with MPICH's values (mpio.h), so that a C program and tsmpi print the same
 * numbers. Access modes are bits; exactly one of RDONLY, RDWR and WRONLY is set.
 */
export const MODE_CREATE = 1;
export const MODE_RDONLY = 2;
export const MODE_WRONLY = 4;
export const MODE_RDWR = 8;
export const MODE_DELETE_ON_CLOSE = 16;
export const MODE_UNIQUE_OPEN = 32;
export const MODE_EXCL = 64;
export const MODE_APPEND = 128;
export const MODE_SEQUENTIAL = 256;

/** whence of File.Seek and File.Seek_shared. */
export const SEEK_SET = 600;
export const SEEK_CUR = 602;
export const SEEK_END = 604;

/** File.Set_view's disp for files opened MODE_SEQUENTIAL: the current position of the shared pointer. */
export const DISPLACEMENT_CURRENT: -54278278 = -54278278;
export const MAX_DATAREP_STRING = 128;

/** Every mode bit tsmpi knows. */
export const MODE_ALL = MODE_CREATE | MODE_RDONLY | MODE_WRONLY | MODE_RDWR | MODE_DELETE_ON_CLOSE |
  MODE_UNIQUE_OPEN | MODE_EXCL | MODE_APPEND | MODE_SEQUENTIAL;
