/* One rank of the start-up benchmark, MPICH's side: prints how long after TSMPI_BENCH_T0 (ms
 * since the epoch) its MPI_Init returned, and its resident shared memory then (RssShmem of
 * /proc/self/status), in the format of init-rank.ts. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long rss_shmem_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  if (f == NULL) return -1;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "RssShmem:", 9) == 0) kib = strtol(line + 9, NULL, 10);
  }
  fclose(f);
  return kib;
}

int main(int argc, char **argv) {
  struct timespec now;
  int rank;
  const char *t0 = getenv("TSMPI_BENCH_T0");
  MPI_Init(&argc, &argv);
  clock_gettime(CLOCK_REALTIME, &now);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double ms = now.tv_sec * 1e3 + now.tv_nsec / 1e6 - (t0 != NULL ? atof(t0) : 0);
  printf("init-done rank %d ms %.1f shmem-kib %ld\n", rank, ms, rss_shmem_kib());
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
