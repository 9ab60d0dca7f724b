/*
 * Option parsing shared by osu_pt2pt.c and osu_coll.c: OMB's -m forms and number checks, as
 * bench/osu/util.ts parses them, so both sides of a comparison accept the same command lines.
 */
#ifndef OSU_OPTIONS_H
#define OSU_OPTIONS_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MESSAGE_SIZE_LIMIT (1 << 30)

enum parse_result { PARSE_OK, PARSE_HELP, PARSE_VERSION, PARSE_BAD };

static char bad_message[256];

/* A non-negative decimal integer no larger than `limit`, or -1. */
static long number(const char *text, long limit)
{
    long value = 0;
    if (text == NULL || *text == '\0') return -1;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        value = value * 10 + (*p - '0');
        if (value > limit) return -1;
    }
    return value;
}

/* -m MAX, -m MIN:MAX, -m MIN:, -m :MAX, as util.ts's setMessageSize; MIN below `floor` becomes `floor`. */
static int parse_sizes(const char *text, long *min_size, long *max_size, long floor)
{
    const char *colon = strchr(text, ':');
    if (colon == NULL) {
        long max = number(text, MESSAGE_SIZE_LIMIT);
        if (max < 0) return -1;
        *max_size = max;
        return 0;
    }
    if (strchr(colon + 1, ':') != NULL || (colon == text && colon[1] == '\0')) return -1;
    if (colon != text) {
        char min_text[32];
        size_t n = (size_t)(colon - text);
        if (n >= sizeof min_text) return -1;
        memcpy(min_text, text, n);
        min_text[n] = '\0';
        long min = number(min_text, MESSAGE_SIZE_LIMIT);
        if (min < 0) return -1;
        *min_size = min < floor ? floor : min;
    }
    if (colon[1] != '\0') {
        long max = number(colon + 1, MESSAGE_SIZE_LIMIT);
        if (max < 0) return -1;
        *max_size = max;
    }
    return 0;
}

static enum parse_result bad(const char *message, char opt, const char *arg)
{
    if (arg != NULL) snprintf(bad_message, sizeof bad_message, "%s [-%c %s]", message, opt, arg);
    else snprintf(bad_message, sizeof bad_message, "%s [-%c]", message, opt);
    return PARSE_BAD;
}

/*
 * After MPI_Init: rank 0 reports help, version or a bad command line as OMB does. Returns the
 * exit status when the program should finalize and stop, -1 when it should run.
 */
static int report_parse(enum parse_result parsed, int rank, void (*help)(void), const char *version_line)
{
    if (parsed == PARSE_OK) return -1;
    if (rank == 0) {
        if (parsed == PARSE_HELP) help();
        if (parsed == PARSE_VERSION) printf("%s\n", version_line);
        if (parsed == PARSE_BAD) {
            fprintf(stderr, "%s\n\n", bad_message);
            help();
        }
        fflush(stdout);
    }
    MPI_Finalize();
    return parsed == PARSE_BAD ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
