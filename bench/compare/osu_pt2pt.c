/*
 * The C side of bench/compare: osu_latency, osu_bw, osu_bibw and osu_mbw_mr for a C MPI (MPICH
 * here), written to do exactly what bench/osu/osu_latency.ts, osu_bw.ts, osu_bibw.ts and osu_mbw_mr.ts do, so that one parser reads both and the
 * numbers compare size by size:
 *   - same options and defaults: -m [MIN:]MAX, -i ITER, -x ITER, -W WINDOW (bw), -h, -v; an
 *     explicit -i/-x applies to every size, the defaults drop above 8192 bytes
 *     (latency 10000/100 then 1000/10; bandwidth 100/10 then 20/2; window 64);
 *   - same algorithm: per size fill the buffers ('a' send, 'b' receive), Barrier, untimed
 *     warm-up, MPI_Wtime around the timed loop only; latency is blocking ping-pong, bandwidth a
 *     window of Isend/Irecv + Waitall closed by a 4-byte acknowledgement, bidirectional
 *     bandwidth a window of Irecvs then Isends on both ranks, closed by the receives (no ack)
 *     and counted in both directions, the message rate osu_bw's window between pairs (rank i
 *     sends to i + n/2), the aggregate MB/s over the senders' mean time and messages per second;
 *   - same output: "# OSU MPI ... Test v7.0", extra "#" lines, "# Size" left in 10 and the unit
 *     right in 20, rows "%-10d%20.2f".
 *
 * Built twice by bench/compare/compare.ts (into bench/compare/build/, which git ignores):
 *   mpicc -O2 -o build/osu_latency_c osu_pt2pt.c
 *   mpicc -O2 -DOSU_BW -o build/osu_bw_c osu_pt2pt.c
 *   mpicc -O2 -DOSU_BIBW -o build/osu_bibw_c osu_pt2pt.c
 *   mpicc -O2 -DOSU_MBW_MR -o build/osu_mbw_mr_c osu_pt2pt.c
 *   mpiexec -n 2 ./build/osu_latency_c -m 0:4096 -i 1000
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osu_options.h"

#define OMB_VERSION "7.0"
#define LARGE_MESSAGE_SIZE 8192
#define MAX_MESSAGE_SIZE (1 << 22)
#define FIELD_WIDTH 20
#define FLOAT_PRECISION 2

#if defined(OSU_BIBW) || defined(OSU_MBW_MR)
/* Everything of osu_bw (options, defaults, the window) but the exchange and the count. */
#define OSU_BW
#endif
#ifdef OSU_BW
#ifdef OSU_BIBW
#define PROGRAM "osu_bibw"
#define TITLE "OSU MPI Bi-Directional Bandwidth Test"
#define DIRECTIONS 2
#elif defined(OSU_MBW_MR)
#define PROGRAM "osu_mbw_mr"
#define TITLE "OSU MPI Multiple Bandwidth / Message Rate Test"
#define DIRECTIONS 1
#else
#define PROGRAM "osu_bw"
#define TITLE "OSU MPI Bandwidth Test"
#define DIRECTIONS 1
#endif
#define UNIT "Bandwidth (MB/s)"
#define DEF_ITER 100
#define DEF_SKIP 10
#define DEF_ITER_LARGE 20
#define DEF_SKIP_LARGE 2
#define DEF_MIN_SIZE 1
#else
#define PROGRAM "osu_latency"
#define TITLE "OSU MPI Latency Test"
#define UNIT "Latency (us)"
#define DEF_ITER 10000
#define DEF_SKIP 100
#define DEF_ITER_LARGE 1000
#define DEF_SKIP_LARGE 10
#define DEF_MIN_SIZE 0
#endif
#define DEF_WINDOW 64

struct settings {
    long min_size, max_size;
    int iterations, skip, iterations_large, skip_large, window;
};


static enum parse_result parse(int argc, char **argv, struct settings *s)
{
    s->min_size = DEF_MIN_SIZE;
    s->max_size = MAX_MESSAGE_SIZE;
    s->iterations = DEF_ITER;
    s->skip = DEF_SKIP;
    s->iterations_large = DEF_ITER_LARGE;
    s->skip_large = DEF_SKIP_LARGE;
    s->window = DEF_WINDOW;
    for (int k = 1; k < argc; k++) {
        const char *word = argv[k];
        if (word[0] != '-' || word[1] == '\0' || word[2] != '\0') return bad("Invalid option", word[0] == '-' ? word[1] : word[0], NULL);
        char opt = word[1];
        if (opt == 'h') return PARSE_HELP;
        if (opt == 'v') return PARSE_VERSION;
#ifdef OSU_BW
        int takes_arg = opt == 'm' || opt == 'i' || opt == 'x' || opt == 'W';
#else
        int takes_arg = opt == 'm' || opt == 'i' || opt == 'x';
#endif
        if (!takes_arg) return bad("Invalid option", opt, NULL);
        if (k + 1 >= argc) return bad("Option Missing Required Argument", opt, NULL);
        const char *arg = argv[++k];
        long n;
        switch (opt) {
        case 'm':
            if (parse_sizes(arg, &s->min_size, &s->max_size, DEF_MIN_SIZE)) return bad("Invalid Message Size", opt, arg);
            break;
        case 'i':
            n = number(arg, 1L << 30);
            if (n < 1) return bad("Invalid Number of Iterations", opt, arg);
            s->iterations = s->iterations_large = (int)n;
            break;
        case 'x':
            n = number(arg, 1L << 30);
            if (n < 0) return bad("Invalid Number of Warmup Iterations", opt, arg);
            s->skip = s->skip_large = (int)n;
            break;
        case 'W':
            n = number(arg, 1L << 20);
            if (n < 1) return bad("Invalid Window Size", opt, arg);
            s->window = (int)n;
            break;
        }
    }
    return PARSE_OK;
}

static void help(void)
{
    printf("Usage: %s_c [options]\n", PROGRAM);
    printf("Options:\n");
    printf("  -m [MIN:]MAX   message sizes (default %d:%d)\n", DEF_MIN_SIZE, MAX_MESSAGE_SIZE);
    printf("  -i ITER        iterations per size (default %d, %d above %d bytes)\n", DEF_ITER, DEF_ITER_LARGE,
           LARGE_MESSAGE_SIZE);
    printf("  -x ITER        warm-up iterations per size (default %d, %d above %d bytes)\n", DEF_SKIP, DEF_SKIP_LARGE,
           LARGE_MESSAGE_SIZE);
#ifdef OSU_BW
    printf("  -W WINDOW      messages per window (default %d)\n", DEF_WINDOW);
#endif
    printf("  -h             print this help\n");
    printf("  -v             print version info\n");
}

#ifdef OSU_BIBW
/* `n` windows each way: both ranks post `window` Irecvs, then `window` Isends; rank 0 waits
 * for its sends then its receives, rank 1 the other way round (as OMB). reqs holds 2 windows. */
static void windows(int rank, char *s, char *r, int size, int window, MPI_Request *reqs, MPI_Status *stats, int n)
{
    int peer = 1 - rank;
    int send_tag = rank == 0 ? 100 : 10;
    int recv_tag = rank == 0 ? 10 : 100;
    MPI_Request *recvs = reqs, *sends = reqs + window;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < window; j++) MPI_Irecv(r, size, MPI_CHAR, peer, recv_tag, MPI_COMM_WORLD, &recvs[j]);
        for (int j = 0; j < window; j++) MPI_Isend(s, size, MPI_CHAR, peer, send_tag, MPI_COMM_WORLD, &sends[j]);
        if (rank == 0) {
            MPI_Waitall(window, sends, stats);
            MPI_Waitall(window, recvs, stats);
        } else {
            MPI_Waitall(window, recvs, stats);
            MPI_Waitall(window, sends, stats);
        }
    }
}
#elif defined(OSU_MBW_MR)
/* Pairs: rank i < n/2 sends `n` windows to rank i + n/2, which receives them; each window ends
 * with a 4-byte ack. */
static void windows(int rank, int pairs, char *s, char *r, int size, int window, MPI_Request *reqs, MPI_Status *stats, int n)
{
    int sender = rank < pairs;
    int peer = sender ? rank + pairs : rank - pairs;
    for (int i = 0; i < n; i++) {
        if (sender) {
            for (int j = 0; j < window; j++) MPI_Isend(s, size, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &reqs[j]);
            MPI_Waitall(window, reqs, stats);
            MPI_Recv(r, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int j = 0; j < window; j++) MPI_Irecv(r, size, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &reqs[j]);
            MPI_Waitall(window, reqs, stats);
            MPI_Send(s, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD);
        }
    }
}
#elif defined(OSU_BW)
/* Rank 0 sends `n` windows, rank 1 receives them; each window ends with a 4-byte ack. */
static void windows(int rank, char *s, char *r, int size, int window, MPI_Request *reqs, MPI_Status *stats, int n)
{
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            for (int j = 0; j < window; j++) MPI_Isend(s, size, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &reqs[j]);
            MPI_Waitall(window, reqs, stats);
            MPI_Recv(r, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int j = 0; j < window; j++) MPI_Irecv(r, size, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &reqs[j]);
            MPI_Waitall(window, reqs, stats);
            MPI_Send(s, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
        }
    }
}
#else
/* `n` round trips of blocking Send/Recv; rank 0 sends first. */
static void ping_pong(int rank, char *s, char *r, int size, int n)
{
    int peer = 1 - rank;
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(s, size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(r, size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(r, size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(s, size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        }
    }
}
#endif

int main(int argc, char **argv)
{
    struct settings s;
    enum parse_result parsed = parse(argc, argv, &s);
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    int status = report_parse(parsed, rank, help, "# " TITLE " v" OMB_VERSION);
    if (status >= 0) return status;
#ifdef OSU_MBW_MR
    int pairs = nprocs / 2;
    if (nprocs < 2 || nprocs % 2 != 0) {
        if (rank == 0) fprintf(stderr, "This test requires an even number of processes\n");
#else
    if (nprocs != 2) {
        if (rank == 0) fprintf(stderr, "This test requires exactly two processes\n");
#endif
        MPI_Finalize();
        return EXIT_FAILURE;
    }

    size_t capacity = (size_t)(s.max_size < 4 ? 4 : s.max_size);
    char *sbuf = NULL, *rbuf = NULL;
    long page = sysconf(_SC_PAGESIZE);
    if (posix_memalign((void **)&sbuf, (size_t)page, capacity) || posix_memalign((void **)&rbuf, (size_t)page, capacity)) {
        fprintf(stderr, "rank %d: cannot allocate two buffers of %zu bytes\n", rank, capacity);
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
    }
#ifdef OSU_BW
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)s.window * DIRECTIONS);
    MPI_Status *stats = malloc(sizeof(MPI_Status) * (size_t)s.window);
    if (reqs == NULL || stats == NULL) {
        fprintf(stderr, "rank %d: cannot allocate %d requests\n", rank, s.window);
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
    }
#endif

    if (rank == 0) {
        char library[MPI_MAX_LIBRARY_VERSION_STRING];
        int length = 0;
        MPI_Get_library_version(library, &length);
        library[strcspn(library, "\n")] = '\0';
        printf("# " TITLE " v" OMB_VERSION "\n");
        printf("# MPI library: %s\n", library);
#ifdef OSU_MBW_MR
        printf("# pairs: %d (rank i sends to rank i + %d)\n", pairs, pairs);
        printf("%-*s%*s%*s\n", 10, "# Size", FIELD_WIDTH, "MB/s", FIELD_WIDTH, "Messages/s");
#else
        printf("%-*s%*s\n", 10, "# Size", FIELD_WIDTH, UNIT);
#endif
        fflush(stdout);
    }

    for (long size = s.min_size; size <= s.max_size; size = size ? size * 2 : 1) {
#ifdef OSU_BW
        if (size == 0) continue;
#endif
        int iterations = size > LARGE_MESSAGE_SIZE ? s.iterations_large : s.iterations;
        int skip = size > LARGE_MESSAGE_SIZE ? s.skip_large : s.skip;
        memset(sbuf, 'a', (size_t)size);
        memset(rbuf, 'b', (size_t)size);
        MPI_Barrier(MPI_COMM_WORLD);
#ifdef OSU_MBW_MR
        windows(rank, pairs, sbuf, rbuf, (int)size, s.window, reqs, stats, skip);
        double t0 = MPI_Wtime();
        windows(rank, pairs, sbuf, rbuf, (int)size, s.window, reqs, stats, iterations);
        double elapsed = rank < pairs ? MPI_Wtime() - t0 : 0.0, total = 0.0;
        MPI_Reduce(&elapsed, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        double rate = (double)pairs * iterations * s.window / (total / pairs);
        double value = rate * (double)size / 1e6;
#elif defined(OSU_BW)
        windows(rank, sbuf, rbuf, (int)size, s.window, reqs, stats, skip);
        double t0 = MPI_Wtime();
        windows(rank, sbuf, rbuf, (int)size, s.window, reqs, stats, iterations);
        double t1 = MPI_Wtime();
        double value = (double)size / 1e6 * iterations * s.window * DIRECTIONS / (t1 - t0);
#else
        ping_pong(rank, sbuf, rbuf, (int)size, skip);
        double t0 = MPI_Wtime();
        ping_pong(rank, sbuf, rbuf, (int)size, iterations);
        double t1 = MPI_Wtime();
        double value = (t1 - t0) * 1e6 / (2.0 * iterations);
#endif
        if (rank == 0) {
#ifdef OSU_MBW_MR
            printf("%-*ld%*.*f%*.*f\n", 10, size, FIELD_WIDTH, FLOAT_PRECISION, value, FIELD_WIDTH, FLOAT_PRECISION, rate);
#else
            printf("%-*ld%*.*f\n", 10, size, FIELD_WIDTH, FLOAT_PRECISION, value);
#endif
            fflush(stdout);
        }
    }

#ifdef OSU_BW
    free(reqs);
    free(stats);
#endif
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return EXIT_SUCCESS;
}
