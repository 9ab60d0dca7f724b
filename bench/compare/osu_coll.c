/*
 * The C side of bench/compare for collectives: osu_barrier, osu_bcast, osu_reduce, osu_allreduce,
 * osu_allgather, osu_alltoall, osu_gather and osu_scatter for a C MPI (MPICH here), written to do
 * what bench/osu/coll.ts does, so that one parser reads both and the rows compare size by size:
 *   - same options and defaults: -m [MIN:]MAX, -i ITER, -x ITER, -h, -v (-c is accepted and
 *     ignored, as in coll.ts); sizes are bytes per rank (per block for gather, scatter,
 *     allgather, alltoall) from 1 (or MIN) doubling to MAX (default 4 MiB); 10000 timed and 100
 *     warm-up iterations up to 8192 bytes, 1000 and 10 above (an explicit -i/-x applies to every
 *     size);
 *   - same data: bcast, gather, scatter, allgather and alltoall move MPI_CHAR, reduce and
 *     allreduce sum max(1, size / 4) MPI_FLOATs (so sizes 1, 2 and 4 all reduce one float),
 *     rank 0 is the root, buffers start zeroed;
 *   - same method, OMB's: per size a Barrier, then skip + iterations calls, each timed alone by
 *     an MPI_Wtime pair and followed by an untimed Barrier (none for osu_barrier, whose operation
 *     is one), the warm-up calls dropped; each rank's mean in µs is summed to rank 0, which
 *     prints the mean over ranks;
 *   - same output: "# OSU MPI ... Test v7.0", a "# MPI library:" line, "# Size" left in 10 and
 *     "Avg Latency(us)" right in 20, rows "%-10d%20.2f"; osu_barrier prints no size column:
 *     "Avg Latency(us)" and the value right in 20.
 * One difference: coll.ts first runs its whole table once untimed so that V8 has compiled the
 * loop before a row is timed; C has no JIT, its per-size warm-up is enough.
 *
 * Built once per benchmark by bench/compare/compare.ts (into bench/compare/build/, git-ignored):
 *   mpicc -O2 -DOSU_ALLREDUCE -o build/osu_allreduce_c osu_coll.c
 *   mpiexec -n 4 ./build/osu_allreduce_c -m 1:4096 -i 1000
 * (-DOSU_BARRIER, -DOSU_BCAST, -DOSU_REDUCE, -DOSU_ALLREDUCE, -DOSU_ALLGATHER, -DOSU_ALLTOALL,
 * -DOSU_GATHER, -DOSU_SCATTER, -DOSU_BCAST_PERSISTENT or -DOSU_ALLREDUCE_PERSISTENT picks the
 * benchmark.)
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
#define DEF_ITER 10000
#define DEF_SKIP 100
#define DEF_ITER_LARGE 1000
#define DEF_SKIP_LARGE 10

/* MPI-4's persistent collectives (OMB's collective/persistent): -DOSU_BCAST_PERSISTENT and
 * -DOSU_ALLREDUCE_PERSISTENT time MPI_Start + MPI_Wait of a request made once per size. */
#if defined(OSU_BCAST_PERSISTENT)
#define OSU_BCAST
#define OSU_PERSISTENT
#elif defined(OSU_ALLREDUCE_PERSISTENT)
#define OSU_ALLREDUCE
#define OSU_PERSISTENT
#endif

#if defined(OSU_PERSISTENT) && defined(OSU_BCAST)
#define PROGRAM "osu_bcast_persistent"
#define TITLE "OSU MPI Persistent Broadcast Latency Test"
#elif defined(OSU_PERSISTENT) && defined(OSU_ALLREDUCE)
#define PROGRAM "osu_allreduce_persistent"
#define TITLE "OSU MPI Persistent Allreduce Latency Test"
#elif defined(OSU_BARRIER)
#define PROGRAM "osu_barrier"
#define TITLE "OSU MPI Barrier Latency Test"
#define SIZELESS 1
#elif defined(OSU_BCAST)
#define PROGRAM "osu_bcast"
#define TITLE "OSU MPI Broadcast Latency Test"
#elif defined(OSU_REDUCE)
#define PROGRAM "osu_reduce"
#define TITLE "OSU MPI Reduce Latency Test"
#elif defined(OSU_ALLREDUCE)
#define PROGRAM "osu_allreduce"
#define TITLE "OSU MPI Allreduce Latency Test"
#elif defined(OSU_ALLGATHER)
#define PROGRAM "osu_allgather"
#define TITLE "OSU MPI Allgather Latency Test"
#elif defined(OSU_ALLTOALL)
#define PROGRAM "osu_alltoall"
#define TITLE "OSU MPI All-to-All Personalized Exchange Latency Test"
#elif defined(OSU_GATHER)
#define PROGRAM "osu_gather"
#define TITLE "OSU MPI Gather Latency Test"
#elif defined(OSU_SCATTER)
#define PROGRAM "osu_scatter"
#define TITLE "OSU MPI Scatter Latency Test"
#else
#error "define one of OSU_BARRIER, OSU_BCAST, OSU_REDUCE, OSU_ALLREDUCE, OSU_ALLGATHER, OSU_ALLTOALL, OSU_GATHER, OSU_SCATTER"
#endif
#ifndef SIZELESS
#define SIZELESS 0
#endif

struct settings {
    long min_size, max_size;
    int iterations, skip, iterations_large, skip_large;
};


static enum parse_result parse(int argc, char **argv, struct settings *s)
{
    s->min_size = 0;
    s->max_size = MAX_MESSAGE_SIZE;
    s->iterations = DEF_ITER;
    s->skip = DEF_SKIP;
    s->iterations_large = DEF_ITER_LARGE;
    s->skip_large = DEF_SKIP_LARGE;
    for (int k = 1; k < argc; k++) {
        const char *word = argv[k];
        if (word[0] != '-' || word[1] == '\0' || word[2] != '\0') return bad("Invalid option", word[0] == '-' ? word[1] : word[0], NULL);
        char opt = word[1];
        if (opt == 'h') return PARSE_HELP;
        if (opt == 'v') return PARSE_VERSION;
        if (opt == 'c') continue; /* coll.ts accepts and ignores it; so does this program */
        if (opt != 'm' && opt != 'i' && opt != 'x') return bad("Invalid option", opt, NULL);
        if (k + 1 >= argc) return bad("Option Missing Required Argument", opt, NULL);
        const char *arg = argv[++k];
        long n;
        switch (opt) {
        case 'm':
            if (parse_sizes(arg, &s->min_size, &s->max_size, 0)) return bad("Invalid Message Size", opt, arg);
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
        }
    }
    return PARSE_OK;
}

static void help(void)
{
    printf("Usage: %s_c [options]\n", PROGRAM);
    printf("Options:\n");
    if (!SIZELESS) printf("  -m [MIN:]MAX   message sizes in bytes per rank (default 1:%d)\n", MAX_MESSAGE_SIZE);
    printf("  -i ITER        iterations per size (default %d, %d above %d bytes)\n", DEF_ITER, DEF_ITER_LARGE,
           LARGE_MESSAGE_SIZE);
    printf("  -x ITER        warm-up iterations per size (default %d, %d above %d bytes)\n", DEF_SKIP, DEF_SKIP_LARGE,
           LARGE_MESSAGE_SIZE);
    printf("  -c             accepted and ignored (no validation)\n");
    printf("  -h             print this help\n");
    printf("  -v             print version info\n");
}

/* The buffers of one run, sized for the largest message; zeroed, as coll.ts's typed arrays. */
struct buffers {
    char *send, *recv;
};

static void *zeroed(size_t bytes, int rank)
{
    void *p = NULL;
    long page = sysconf(_SC_PAGESIZE);
    if (bytes == 0) bytes = 1;
    if (posix_memalign(&p, (size_t)page, bytes)) {
        fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
    }
    memset(p, 0, bytes);
    return p;
}

static struct buffers allocate(long max_size, int rank, int nprocs)
{
    size_t one = (size_t)(max_size < 4 ? 4 : max_size);
    size_t all = one * (size_t)nprocs;
    struct buffers b;
    (void)all; /* unused where both buffers hold one block */
#if defined(OSU_ALLGATHER)
    b.send = zeroed(one, rank);
    b.recv = zeroed(all, rank);
#elif defined(OSU_ALLTOALL)
    b.send = zeroed(all, rank);
    b.recv = zeroed(all, rank);
#elif defined(OSU_GATHER)
    b.send = zeroed(one, rank);
    b.recv = zeroed(rank == 0 ? all : 0, rank);
#elif defined(OSU_SCATTER)
    b.send = zeroed(rank == 0 ? all : 0, rank);
    b.recv = zeroed(one, rank);
#else
    b.send = zeroed(one, rank);
    b.recv = zeroed(one, rank);
#endif
    return b;
}

#if defined(OSU_PERSISTENT)
static MPI_Request persistent = MPI_REQUEST_NULL;

/* The persistent request for `size` bytes per rank, made before a size's loop (not timed). */
static void begin(struct buffers *b, int size)
{
#if defined(OSU_BCAST)
    MPI_Bcast_init(b->send, size, MPI_CHAR, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &persistent);
#else
    MPI_Allreduce_init(b->send, b->recv, size >> 2 > 0 ? size >> 2 : 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &persistent);
#endif
}

static void end(void) { MPI_Request_free(&persistent); }
#endif

/* One call of the benchmark's collective on `size` bytes per rank, rank 0 as the root. */
static inline void operation(struct buffers *b, int size, int rank)
{
#if defined(OSU_PERSISTENT)
    (void)b, (void)size, (void)rank;
    MPI_Start(&persistent);
    MPI_Wait(&persistent, MPI_STATUS_IGNORE);
#elif defined(OSU_BARRIER)
    (void)b, (void)size, (void)rank;
    MPI_Barrier(MPI_COMM_WORLD);
#elif defined(OSU_BCAST)
    (void)rank;
    MPI_Bcast(b->send, size, MPI_CHAR, 0, MPI_COMM_WORLD);
#elif defined(OSU_REDUCE)
    (void)rank;
    MPI_Reduce(b->send, b->recv, size >> 2 > 0 ? size >> 2 : 1, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
#elif defined(OSU_ALLREDUCE)
    (void)rank;
    MPI_Allreduce(b->send, b->recv, size >> 2 > 0 ? size >> 2 : 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
#elif defined(OSU_ALLGATHER)
    (void)rank;
    MPI_Allgather(b->send, size, MPI_CHAR, b->recv, size, MPI_CHAR, MPI_COMM_WORLD);
#elif defined(OSU_ALLTOALL)
    (void)rank;
    MPI_Alltoall(b->send, size, MPI_CHAR, b->recv, size, MPI_CHAR, MPI_COMM_WORLD);
#elif defined(OSU_GATHER)
    MPI_Gather(b->send, size, MPI_CHAR, rank == 0 ? b->recv : NULL, size, MPI_CHAR, 0, MPI_COMM_WORLD);
#elif defined(OSU_SCATTER)
    MPI_Scatter(rank == 0 ? b->send : NULL, size, MPI_CHAR, b->recv, size, MPI_CHAR, 0, MPI_COMM_WORLD);
#endif
}

/*
 * OMB's loop: every call timed alone, warm-up calls dropped, an untimed Barrier after each call
 * so that a rank that leaves a call early (a bcast root, a reduce leaf) cannot start the next
 * one before the others: each call is measured from a common start. Returns µs per call.
 */
static double measure(struct buffers *b, int size, int rank, int skip, int iterations)
{
    double timer = 0.0;
#if defined(OSU_PERSISTENT)
    begin(b, size);
#endif
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < skip + iterations; i++) {
        double t0 = MPI_Wtime();
        operation(b, size, rank);
        double t1 = MPI_Wtime();
        if (i >= skip) timer += t1 - t0;
        if (!SIZELESS) MPI_Barrier(MPI_COMM_WORLD);
    }
#if defined(OSU_PERSISTENT)
    end();
#endif
    return timer * 1e6 / iterations;
}

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
    if (nprocs < 2) {
        if (rank == 0) fprintf(stderr, "This test requires at least two processes\n");
        MPI_Finalize();
        return EXIT_FAILURE;
    }

    struct buffers b = allocate(SIZELESS ? 0 : s.max_size, rank, nprocs);
    if (rank == 0) {
        char library[MPI_MAX_LIBRARY_VERSION_STRING];
        int length = 0;
        MPI_Get_library_version(library, &length);
        library[strcspn(library, "\n")] = '\0';
        for (char *c = library; *c; c++)
            if (*c == '\t') *c = ' '; /* MPICH writes "MPICH Version:<tab>4.0.2" */
        printf("# " TITLE " v" OMB_VERSION "\n");
        printf("# MPI library: %s (%d ranks)\n", library, nprocs);
        if (SIZELESS) printf("%*s\n", FIELD_WIDTH, "Avg Latency(us)");
        else printf("%-*s%*s\n", 10, "# Size", FIELD_WIDTH, "Avg Latency(us)");
        fflush(stdout);
    }

    /* Sizes as coll.ts: from MIN (at least 1) doubling to MAX; osu_barrier has one row. */
    long first = SIZELESS ? 0 : (s.min_size < 1 ? 1 : s.min_size);
    long last = SIZELESS ? 0 : s.max_size;
    for (long size = first; size <= last; size = size ? size * 2 : last + 1) {
        int large = size > LARGE_MESSAGE_SIZE;
        double mine = measure(&b, (int)size, rank, large ? s.skip_large : s.skip, large ? s.iterations_large : s.iterations);
        double total = 0.0;
        MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double avg = total / nprocs;
            if (SIZELESS) printf("%*.*f\n", FIELD_WIDTH, FLOAT_PRECISION, avg);
            else printf("%-*ld%*.*f\n", 10, size, FIELD_WIDTH, FLOAT_PRECISION, avg);
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    free(b.send);
    free(b.recv);
    MPI_Finalize();
    return EXIT_SUCCESS;
}
