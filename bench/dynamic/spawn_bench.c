/*
 * The cost of dynamic processes in MPICH, the C twin of bench/dynamic/spawn-bench.ts (same
 * method, flags, defaults and output; see there). One parent on MPI_COMM_SELF times
 * MPI_Comm_spawn of N children of this program (they only MPI_Init, disconnect and finalize),
 * then spawns one child and runs osu_latency's ping-pong and osu_bw's window over the spawned
 * intercommunicator.
 *   mpicc -O2 -o spawn_bench bench/dynamic/spawn_bench.c
 *   mpiexec.hydra -n 1 ./spawn_bench [--spawn 1,2,4] [--repeat 5] [--lat-sizes ...] [--bw-sizes ...]
 *     [--iters N] [--iters-large N] [--bw-iters N] [--bw-iters-large N]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE 8192
#define WINDOW 64
#define MAXN 64

typedef struct {
    int spawn[MAXN], nspawn, repeat;
    int lat[MAXN], nlat, bw[MAXN], nbw;
    int iters, iters_large, bw_iters, bw_iters_large;
    int world; /* --world 1: no spawn, ranks 0 and 1 of one job measure (see main) */
} config;

static int list(const char *s, int *out) {
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t != NULL && n < MAXN; t = strtok_r(NULL, ",", &save)) out[n++] = atoi(t);
    free(copy);
    return n;
}

/* The defaults of bench/dynamic/config.ts. */
static void parse(int argc, char **argv, config *c) {
    c->nspawn = list("1,2,4", c->spawn);
    c->repeat = 5;
    c->nlat = list("1,4,16,64,256,1024,4096,16384,65536,262144,1048576", c->lat);
    c->nbw = list("1024,65536,1048576", c->bw);
    c->iters = 1000, c->iters_large = 100, c->bw_iters = 100, c->bw_iters_large = 20;
    c->world = 0;
    for (int i = 0; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--spawn")) c->nspawn = list(v, c->spawn);
        else if (!strcmp(k, "--repeat")) c->repeat = atoi(v);
        else if (!strcmp(k, "--lat-sizes")) c->nlat = list(v, c->lat);
        else if (!strcmp(k, "--bw-sizes")) c->nbw = list(v, c->bw);
        else if (!strcmp(k, "--iters")) c->iters = atoi(v);
        else if (!strcmp(k, "--iters-large")) c->iters_large = atoi(v);
        else if (!strcmp(k, "--bw-iters")) c->bw_iters = atoi(v);
        else if (!strcmp(k, "--bw-iters-large")) c->bw_iters_large = atoi(v);
        else if (!strcmp(k, "--world")) c->world = atoi(v);
        else {
            fprintf(stderr, "spawn_bench: unknown option %s\n", k);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
}

/* osu's warm-ups: a tenth of the timed iterations (at least one). */
static int skip_of(int n) { return n / 10 > 1 ? n / 10 : 1; }

static double latency(MPI_Comm inter, int me, int peer, char *buf, int size, int iters, int skip) {
    double t0 = 0;
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip) t0 = MPI_Wtime();
        if (me == 0) {
            MPI_Send(buf, size, MPI_CHAR, peer, 1, inter);
            MPI_Recv(buf, size, MPI_CHAR, peer, 1, inter, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, size, MPI_CHAR, peer, 1, inter, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_CHAR, peer, 1, inter);
        }
    }
    return (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
}

static double bandwidth(MPI_Comm inter, int me, int peer, char *buf, int size, int iters, int skip) {
    MPI_Request reqs[WINDOW];
    MPI_Status stats[WINDOW]; /* not MPI_STATUSES_IGNORE: gcc 12 warns of it as a zero-size array */
    char ack[4];
    double t0 = 0;
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip) t0 = MPI_Wtime();
        if (me == 0) {
            for (int w = 0; w < WINDOW; w++) MPI_Isend(buf, size, MPI_CHAR, peer, 100, inter, &reqs[w]);
            MPI_Waitall(WINDOW, reqs, stats);
            MPI_Recv(ack, 4, MPI_CHAR, peer, 101, inter, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < WINDOW; w++) MPI_Irecv(buf, size, MPI_CHAR, peer, 100, inter, &reqs[w]);
            MPI_Waitall(WINDOW, reqs, stats);
            MPI_Send(ack, 4, MPI_CHAR, peer, 101, inter);
        }
    }
    return (double)size * iters * WINDOW / (MPI_Wtime() - t0) / 1e6;
}

static void measure(MPI_Comm inter, int me, int peer, const config *c) {
    int max = 1;
    for (int i = 0; i < c->nlat; i++) max = c->lat[i] > max ? c->lat[i] : max;
    for (int i = 0; i < c->nbw; i++) max = c->bw[i] > max ? c->bw[i] : max;
    char *buf = malloc(max);
    memset(buf, 'a', max);
    if (me == 0) printf("# OSU MPI Latency Test (parent <-> spawned child 0)\n# Size          Latency (us)\n");
    for (int i = 0; i < c->nlat; i++) {
        int n = c->lat[i] > LARGE ? c->iters_large : c->iters;
        double us = latency(inter, me, peer, buf, c->lat[i], n, skip_of(n));
        if (me == 0) printf("%-10d%18.2f\n", c->lat[i], us);
    }
    if (me == 0) printf("# OSU MPI Bandwidth Test (parent -> spawned child 0)\n# Size      Bandwidth (MB/s)\n");
    for (int i = 0; i < c->nbw; i++) {
        int n = c->bw[i] > LARGE ? c->bw_iters_large : c->bw_iters;
        double mbs = bandwidth(inter, me, peer, buf, c->bw[i], n, skip_of(n));
        if (me == 0) printf("%-10d%18.2f\n", c->bw[i], mbs);
    }
    fflush(stdout);
    free(buf);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm parent, inter;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        /* A child: argv is "child idle" or "child measure <options>". */
        if (argc > 2 && !strcmp(argv[2], "measure")) {
            config c;
            parse(argc - 3, argv + 3, &c);
            measure(parent, 1, 0, &c);
        }
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    config c;
    parse(argc - 1, argv + 1, &c);
    if (c.world) {
        /* The fallback baseline where this MPICH cannot spawn (Debian's 4.0.2 is ch4:ucx, whose
         * MPI_Open_port answers "not supported with ucx netmod"): the same loops between ranks 0
         * and 1 of one job, which compare-dynamic runs with UCX_TLS=tcp,self, tsmpi's transport. */
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank < 2) measure(MPI_COMM_WORLD, rank, 1 - rank, &c);
        MPI_Finalize();
        return 0;
    }
    /* MPI_Comm_spawn opens a port for its children and hides that step's error behind "Error in
     * spawn call"; asking MPI_Open_port first tells why a spawn cannot work (exit 3). */
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* MPICH 4.0 reports it on WORLD */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Open_port(MPI_INFO_NULL, port);
    if (err != MPI_SUCCESS) {
        char why[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, why, &len);
        char *last = strrchr(why, '\n');
        fprintf(stderr, "spawn_bench: cannot spawn: MPI_Open_port fails: %s\n", last != NULL && last[1] ? last + 1 : why);
        MPI_Finalize();
        return 3;
    }
    MPI_Close_port(port);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    printf("# spawn N median_ms min_ms first_ms\n");
    char *idle[] = {"child", "idle", NULL};
    double *ms = malloc(sizeof(double) * (c.repeat > 0 ? c.repeat : 1));
    for (int s = 0; s < c.nspawn; s++) {
        for (int r = 0; r < c.repeat; r++) {
            double t0 = MPI_Wtime();
            MPI_Comm_spawn(argv[0], idle, c.spawn[s], MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, MPI_ERRCODES_IGNORE);
            ms[r] = (MPI_Wtime() - t0) * 1e3;
            MPI_Comm_disconnect(&inter);
        }
        double first = ms[0];
        qsort(ms, c.repeat, sizeof(double), cmp);
        double med = c.repeat % 2 ? ms[c.repeat / 2] : (ms[c.repeat / 2 - 1] + ms[c.repeat / 2]) / 2;
        printf("spawn %d %.1f %.1f %.1f\n", c.spawn[s], med, ms[0], first);
        fflush(stdout);
    }
    free(ms);
    /* The child gets "child measure" and the parent's options. */
    char **margv = calloc(argc + 2, sizeof(char *));
    margv[0] = "child", margv[1] = "measure";
    for (int i = 1; i < argc; i++) margv[i + 1] = argv[i];
    MPI_Comm_spawn(argv[0], margv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, MPI_ERRCODES_IGNORE);
    measure(inter, 0, 0, &c);
    MPI_Comm_disconnect(&inter);
    free(margv);
    MPI_Finalize();
    return 0;
}
