/*
 * The C twin of bench/io/io-bench.ts, on MPICH's ROMIO: each rank owns every P-th block of
 * BLOCK bytes of one file (a vector filetype, resized so the ranks' tiles interleave), and
 * writes then reads its blocks collectively (MPI_File_write_at_all / read_at_all) and
 * independently (write_at / read_at). Prints "op block MB/s" rows: the job's bytes over the
 * slowest rank's time, best of REPEAT runs after one untimed warm-up run. Usage: io_bench FILE PER_RANK_BYTES REPEAT BLOCK...
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double run(MPI_File fh, int op, char *buf, int bytes) {
  MPI_Status st;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (op == 0) MPI_File_write_at_all(fh, 0, buf, bytes, MPI_BYTE, &st);
  if (op == 1) MPI_File_read_at_all(fh, 0, buf, bytes, MPI_BYTE, &st);
  if (op == 2) MPI_File_write_at(fh, 0, buf, bytes, MPI_BYTE, &st);
  if (op == 3) MPI_File_read_at(fh, 0, buf, bytes, MPI_BYTE, &st);
  if (op == 0 || op == 2) MPI_File_sync(fh);
  double t = MPI_Wtime() - t0, slowest;
  MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *name = argv[1];
  int perRank = atoi(argv[2]), repeat = atoi(argv[3]);
  char *buf = malloc(perRank);
  for (int i = 0; i < perRank; i++) buf[i] = (char)(i * 7 + rank);
  const char *ops[] = {"write_all", "read_all", "write", "read"};
  if (rank == 0) printf("# op block MB/s\n");
  for (int a = 4; a < argc; a++) {
    int block = atoi(argv[a]), nblocks = perRank / block;
    MPI_Datatype vec, ft;
    MPI_Type_vector(nblocks, block, block * size, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)block * size * nblocks, &ft);
    MPI_Type_commit(&ft);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, (MPI_Offset)rank * block, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    for (int op = 0; op < 4; op++) {
      double best = 1e30;
      run(fh, op, buf, nblocks * block); /* warm-up, untimed */
      for (int r = 0; r < repeat; r++) {
        double t = run(fh, op, buf, nblocks * block);
        if (t < best) best = t;
      }
      if (rank == 0) printf("%s %d %.1f\n", ops[op], block, (double)nblocks * block * size / best / 1e6);
    }
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    MPI_Type_free(&vec);
  }
  if (rank == 0) MPI_File_delete(name, MPI_INFO_NULL);
  free(buf);
  MPI_Finalize();
  return 0;
}
