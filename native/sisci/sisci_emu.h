/*
 * What the parts of tsmpi's SISCI emulation share: sisci_emu.c (the process state, descriptors,
 * segments, maps and queries), sisci_emu_transfer.c (sequences, SCIMemCpy and DMA queues) and
 * sisci_emu_interrupts.c. How the emulation maps SISCI onto one machine is at the top of
 * sisci_emu.c. Nothing declared here leaves the library: EMU_INTERNAL hides it, so a dlopen
 * finds the SCI* calls only.
 */
#ifndef TSMPI_SISCI_EMU_H
#define TSMPI_SISCI_EMU_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sisci_api.h"

#define EMU_INTERNAL __attribute__((visibility("hidden")))

#define SEG_MAGIC 0x53434953u /* "SCIS" */
#define HEADER_BYTES 4096u
#define MAP_ALIGN 4u
#define DMA_ALIGN 8u
#define LATE_TAIL 8u
#define MAX_PENDING_LATE 64

#define SET(e, v) do { if ((e) != NULL) *(e) = (v); } while (0)

typedef struct {
  uint32_t magic;
  uint32_t size;
  _Atomic uint32_t available;
  _Atomic uint32_t connections;
  uint32_t ownerPid;
} seg_header_t;

struct sci_desc {
  int open;
};

struct sci_local_segment {
  char path[128];
  unsigned int id;
  unsigned int size;
  int prepared;
  seg_header_t *header;
  uint8_t *data;
  int maps;
};

struct sci_remote_segment {
  unsigned int nodeId;
  unsigned int id;
  unsigned int size;
  seg_header_t *header;
  uint8_t *data;
  int maps;
};

struct sci_map {
  uint8_t *base;
  unsigned int size;
  int *mapsCounter;
};

typedef struct {
  uint8_t *dst;
  uint8_t bytes[LATE_TAIL];
  unsigned int len;
} late_store_t;

struct sci_sequence {
  sci_map_t map;
  int failed; /* a transfer since the last check was corrupted */
  late_store_t late[MAX_PENDING_LATE];
  int lateCount;
};

typedef struct {
  uint8_t *local;
  uint8_t *remote;
  unsigned int size;
  int read;
} dma_entry_t;

struct sci_dma_queue {
  unsigned int maxEntries;
  unsigned int count;
  dma_entry_t *entries;
  _Atomic int state;
  sci_error_t status;
  sci_cb_dma_t callback;
  void *callbackArg;
  pthread_t worker;
  int workerStarted;
  pthread_mutex_t lock;
  pthread_cond_t done;
};

struct sci_local_interrupt {
  char path[128];
  unsigned int number;
  _Atomic int32_t *flag;
};

struct sci_remote_interrupt {
  _Atomic int32_t *flag;
};

/* The process's state: the scarce resources' limits and counts, injected faults, liveness. */
typedef struct {
  int initialized;
  unsigned int nodeIndex;
  char job[40];
  unsigned int maxSegments;
  unsigned long long maxMapped;
  unsigned int maxInterrupts;
  unsigned int maxConnections;
  unsigned int connections;
  unsigned int segments;
  unsigned long long mapped;
  unsigned int interrupts;
  double pSeq, pCorrupt, pLate;
  uint64_t rng;
  sci_emu_fault_counters_t faults;
  _Atomic int32_t *alive;
  pthread_mutex_t lock;
} emu_state_t;

EMU_INTERNAL extern emu_state_t emu;

static inline unsigned int nodeIdOf(unsigned int index) { return 4u * (index + 1u); }

/* The fault generator's next number in [0, 1) (with emu.lock held). */
EMU_INTERNAL double chance(void);
/* The /dev/shm name of a node's object: kind 's' a segment, 'i' an interrupt, 'a' the liveness word. */
EMU_INTERNAL void objectPath(char *out, size_t n, unsigned int nodeId, char kind, unsigned int id);
EMU_INTERNAL void *mapFile(int fd, size_t bytes);
EMU_INTERNAL long futex(_Atomic int32_t *addr, int op, int32_t val, const struct timespec *timeout);
EMU_INTERNAL void sleepMs(unsigned int ms);
EMU_INTERNAL uint64_t nowMs(void);
/* The node's liveness counter (SCIProbeNode); `create`: the calling process's own node. */
EMU_INTERNAL _Atomic int32_t *aliveWord(unsigned int nodeId, int create);

#endif
