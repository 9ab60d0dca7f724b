/*
 * The C side of bench/compare for the one-sided benchmarks: osu_put_latency, osu_get_latency,
 * osu_put_bw, osu_get_bw, osu_acc_latency, osu_fop_latency, osu_cas_latency for a C MPI,
 * written to do what bench/osu/rma.ts does, size by size:
 *   - options -m [MIN:]MAX, -i ITER, -x ITER, -w create|allocate, -s flush|lock|fence|pscw|lock_all;
 *     defaults -w allocate -s flush, OMB's counts (latency 10000/100, 1000/10 above 8 KiB;
 *     bandwidth 100/10, 20/2, window 64);
 *   - one untimed pass over the whole table first (as the TS side, for its JIT), then per size
 *     Barrier, warm-up, Barrier, MPI_Wtime around the timed loop;
 *   - output "# <title> v7.0", "# Window creation:", "# Synchronization:", the column line and
 *     rows "%-10d%20.2f".
 * Built once per benchmark with -DOSU_<NAME> (e.g. -DOSU_PUT_LATENCY) by compare.ts.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Only the number parsers of the shared header are used here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "osu_options.h"
#pragma GCC diagnostic pop

#if defined(OSU_PUT_LATENCY)
#define PROGRAM "osu_put_latency"
#define TITLE "OSU MPI_Put Latency Test"
#elif defined(OSU_GET_LATENCY)
#define PROGRAM "osu_get_latency"
#define TITLE "OSU MPI_Get latency Test"
#elif defined(OSU_PUT_BW)
#define PROGRAM "osu_put_bw"
#define TITLE "OSU MPI_Put Bandwidth Test"
#define BW 1
#elif defined(OSU_GET_BW)
#define PROGRAM "osu_get_bw"
#define TITLE "OSU MPI_Get Bandwidth Test"
#define BW 1
#elif defined(OSU_ACC_LATENCY)
#define PROGRAM "osu_acc_latency"
#define TITLE "OSU MPI_Accumulate latency Test"
#elif defined(OSU_FOP_LATENCY)
#define PROGRAM "osu_fop_latency"
#define TITLE "OSU MPI_Fetch_and_op latency Test"
#define ATOMIC 1
#elif defined(OSU_CAS_LATENCY)
#define PROGRAM "osu_cas_latency"
#define TITLE "OSU MPI_Compare_and_swap latency Test"
#define ATOMIC 1
#else
#error "define one of OSU_PUT_LATENCY, OSU_GET_LATENCY, OSU_PUT_BW, OSU_GET_BW, OSU_ACC_LATENCY, OSU_FOP_LATENCY, OSU_CAS_LATENCY"
#endif

#ifndef BW
#define BW 0
#endif
#ifndef ATOMIC
#define ATOMIC 0
#endif

#define WINDOW 64
#define LARGE 8192

enum sync { SYNC_FLUSH, SYNC_LOCK, SYNC_FENCE, SYNC_PSCW, SYNC_LOCK_ALL };
static const char *sync_names[] = {"MPI_Win_flush", "MPI_Win_lock/unlock", "MPI_Win_fence", "MPI_Win_post/start/complete/wait",
                                   "MPI_Win_lock_all/unlock_all"};

static MPI_Win win;
static char *origin, *result;
static int64_t one __attribute__((unused)) = 1, fetched __attribute__((unused)), compare_value __attribute__((unused));
static MPI_Group peer_group;
static int rank;

static void op(long size, long at)
{
#if defined(OSU_PUT_LATENCY) || defined(OSU_PUT_BW)
    MPI_Put(origin + at, (int)size, MPI_BYTE, 1, at, (int)size, MPI_BYTE, win);
#elif defined(OSU_GET_LATENCY) || defined(OSU_GET_BW)
    MPI_Get(result + at, (int)size, MPI_BYTE, 1, at, (int)size, MPI_BYTE, win);
#elif defined(OSU_ACC_LATENCY)
    (void)at;
    MPI_Accumulate(origin, (int)size, MPI_INT8_T, 1, 0, (int)size, MPI_INT8_T, MPI_SUM, win);
#elif defined(OSU_FOP_LATENCY)
    (void)size, (void)at;
    MPI_Fetch_and_op(&one, &fetched, MPI_INT64_T, 1, 0, MPI_SUM, win);
#else
    (void)size, (void)at;
    MPI_Compare_and_swap(&one, &compare_value, &fetched, MPI_INT64_T, 1, 0, win);
#endif
}

static void ops(long size)
{
    if (!BW) op(size, 0);
    else for (long w = 0; w < WINDOW; w++) op(size, w * size);
}

static void loop(enum sync sync, long size, int n)
{
    switch (sync) {
    case SYNC_FLUSH:
        if (rank == 0) {
            MPI_Win_lock_all(0, win);
            for (int i = 0; i < n; i++) {
                ops(size);
                MPI_Win_flush(1, win);
            }
            MPI_Win_unlock_all(win);
        }
        break;
    case SYNC_LOCK:
    case SYNC_LOCK_ALL:
        if (rank == 0) {
            for (int i = 0; i < n; i++) {
                if (sync == SYNC_LOCK) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                else MPI_Win_lock_all(0, win);
                ops(size);
                if (sync == SYNC_LOCK) MPI_Win_unlock(1, win);
                else MPI_Win_unlock_all(win);
            }
        }
        break;
    case SYNC_FENCE:
        for (int i = 0; i < n; i++) {
            MPI_Win_fence(0, win);
            if (rank == 0) ops(size);
            MPI_Win_fence(0, win);
        }
        break;
    case SYNC_PSCW:
        for (int i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Win_start(peer_group, 0, win);
                ops(size);
                MPI_Win_complete(win);
            } else {
                MPI_Win_post(peer_group, 0, win);
                MPI_Win_wait(win);
            }
        }
        break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size_ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size_ranks);
    if (size_ranks != 2) {
        if (rank == 0) fprintf(stderr, "This test requires exactly two processes\n");
        MPI_Finalize();
        return 1;
    }
    long min = BW ? 1 : 0, max = 1L << 22;
    long iterations = -1, warmup = -1;
    int allocate = 1;
    enum sync sync = SYNC_FLUSH;
    if (ATOMIC) min = max = 8;
    for (int k = 1; k + 1 < argc; k += 2) {
        const char *flag = argv[k], *value = argv[k + 1];
        if (strcmp(flag, "-m") == 0) {
            long lo = min, hi = max;
            if (parse_sizes(value, &lo, &hi, min)) goto bad;
            if (!ATOMIC) min = lo, max = hi;
        } else if (strcmp(flag, "-i") == 0) {
            iterations = number(value, 1L << 30);
            if (iterations < 1) goto bad;
        } else if (strcmp(flag, "-x") == 0) {
            warmup = number(value, 1L << 30);
            if (warmup < 0) goto bad;
        } else if (strcmp(flag, "-w") == 0) {
            if (strcmp(value, "create") == 0) allocate = 0;
            else if (strcmp(value, "allocate") == 0) allocate = 1;
            else goto bad;
        } else if (strcmp(flag, "-s") == 0) {
            if (strcmp(value, "flush") == 0) sync = SYNC_FLUSH;
            else if (strcmp(value, "lock") == 0) sync = SYNC_LOCK;
            else if (strcmp(value, "fence") == 0) sync = SYNC_FENCE;
            else if (strcmp(value, "pscw") == 0) sync = SYNC_PSCW;
            else if (strcmp(value, "lock_all") == 0) sync = SYNC_LOCK_ALL;
            else goto bad;
        } else {
            goto bad;
        }
        continue;
    bad:
        if (rank == 0) fprintf(stderr, "%s_c: invalid %s %s\n", PROGRAM, flag, value);
        MPI_Finalize();
        return 1;
    }
    long win_bytes = max * (BW ? WINDOW : 1);
    if (win_bytes < 8) win_bytes = 8;
    origin = malloc((size_t)win_bytes);
    result = malloc((size_t)win_bytes);
    memset(origin, 0x61, (size_t)win_bytes);
    void *base;
    if (allocate) {
        MPI_Win_allocate(win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    } else {
        base = calloc(1, (size_t)win_bytes);
        MPI_Win_create(base, win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    MPI_Group world_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int peer = 1 - rank;
    MPI_Group_incl(world_group, 1, &peer, &peer_group);

    if (rank == 0) {
        printf("# %s v7.0\n", TITLE);
        printf("# Window creation: %s\n", allocate ? "MPI_Win_allocate" : "MPI_Win_create");
        printf("# Synchronization: %s\n", sync_names[sync]);
        printf("%-10s%20s\n", "# Size", BW ? "Bandwidth (MB/s)" : "Latency (us)");
        fflush(stdout);
    }
    for (int pass = 0; pass < 2; pass++) {
        for (long size = min; size <= max; size = size == 0 ? 1 : size * 2) {
            int large = size > LARGE;
            int iters = iterations > 0 ? (int)iterations : BW ? (large ? 20 : 100) : (large ? 1000 : 10000);
            int skip = warmup >= 0 ? (int)warmup : BW ? (large ? 2 : 10) : (large ? 10 : 100);
            if (pass == 0) {
                loop(sync, size, iters); /* the untimed pass */
                continue;
            }
            MPI_Barrier(MPI_COMM_WORLD);
            loop(sync, size, skip);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            loop(sync, size, iters);
            double t = MPI_Wtime() - t0;
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                double value = BW ? (size / 1e6) * WINDOW * iters / t : t * 1e6 / iters;
                printf("%-10ld%20.2f\n", ATOMIC ? 8L : size, value);
                fflush(stdout);
            }
        }
    }
    MPI_Win_free(&win);
    MPI_Group_free(&peer_group);
    MPI_Group_free(&world_group);
    MPI_Finalize();
    return 0;
}
