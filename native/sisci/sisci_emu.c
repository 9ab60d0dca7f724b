/*
 * tsmpi's emulation of Dolphin's SISCI API over POSIX shared memory.
 *
 * How SISCI maps onto one machine:
 *   - An emulated SCI node is a set of processes: TSMPI_SCI_NODE=k (set per rank by
 *     `tsmpiexec --sci-nodes`) gives node id 4 * (k + 1), as real SCI node ids are multiples of
 *     4; unset means node 0 (id 4).
 *   - A local segment (node id, segment id) is the file /dev/shm/tsmpi-<job>-sci-<node>-s<id>:
 *     one page of header (magic, size, available flag, connection count) and the data. The
 *     job prefix lets tsmpiexec remove every segment after a crash. Connecting opens and maps
 *     the file; a remote map is a plain shared mapping, so stores through it are visible to the
 *     owner at once, as PIO stores through an SCI adapter would be after its store barrier.
 *   - An interrupt (node id, number) is a file holding one futex word: triggering sets it and
 *     wakes, waiting sleeps on it and clears it, so triggers coalesce (a flag, not a counter),
 *     as SCI interrupts do.
 *   - A DMA queue is a list of copies a worker thread carries out after SCIPostDMAQueue.
 *   - SCIProbeNode: a node is alive while a process of it holds an open descriptor (a count in
 *     /dev/shm/tsmpi-<job>-sci-<node>-alive).
 *
 * What real hardware does differently and the emulation only imitates: remote loads cost
 * microseconds (here they are local loads), there are no CPU atomics across nodes (tsmpi's
 * ch_sci does not use them), store order is only guaranteed at a store barrier, and
 * transmission errors show up in sequence checks. TSMPI_SCI_FAULTS injects the last two:
 * `seq=P` (a sequence check fails, retriable), `corrupt=P` (SCIMemCpy or a DMA transfer flips
 * one payload byte, and the sequence check of that transfer reports it), `late=P` (the last
 * bytes of a SCIMemCpy land only at the next store barrier or sequence check), `seed=N`.
 * Limits for tests: TSMPI_SCI_MAX_SEGMENTS, TSMPI_SCI_MAX_MAPPED (bytes), TSMPI_SCI_MAX_INTERRUPTS,
 * TSMPI_SCI_MAX_CONNECTIONS (remote segments connected at once) per process, and the maxEntries
 * of a DMA queue; exhaustion gives SCI_ERR_NOSPC and
 * SCI_ERR_MAX_ENTRIES as Dolphin's library does.
 */
#include "sisci_emu.h"

const unsigned int SCI_FLAG_FIXED_INTNO = 0x1;
const unsigned int SCI_FLAG_SHARED_INT = 0x2;
const unsigned int SCI_FLAG_USE_CALLBACK = 0x4;
const unsigned int SCI_FLAG_DMA_READ = 0x8;
const unsigned int SCI_FLAG_READONLY_MAP = 0x10;
const unsigned int SCI_FLAG_FORCE_DISCONNECT = 0x20;
const unsigned int SCI_FLAG_NO_FLUSH = 0x40;
const unsigned int SCI_FLAG_NO_STORE_BARRIER = 0x80;
const unsigned int SCI_FLAG_ERROR_CHECK = 0x100;
const unsigned int SCI_Q_ADAPTER = 1;
const unsigned int SCI_Q_ADAPTER_NODEID = 10;
const unsigned int SCI_Q_ADAPTER_DMA_SIZE_ALIGNMENT = 11;
const unsigned int SCI_Q_ADAPTER_DMA_OFFSET_ALIGNMENT = 12;
const unsigned int SCI_Q_ADAPTER_DMA_MTU = 13;
const unsigned int SCI_Q_ADAPTER_SUGGESTED_MIN_DMA_SIZE = 14;
const unsigned int SCI_Q_VENDORID = 2;
const unsigned int SCI_Q_API = 3;

/* ---------------------------------------------------------------- process state */

emu_state_t emu = {.lock = PTHREAD_MUTEX_INITIALIZER};

static unsigned long long envNumber(const char *name, unsigned long long fallback) {
  const char *v = getenv(name);
  if (v == NULL || *v == '\0') return fallback;
  char *end;
  unsigned long long n = strtoull(v, &end, 10);
  return *end == '\0' ? n : fallback;
}

/* xorshift64*: deterministic faults for a given seed. */
double chance(void) {
  uint64_t x = emu.rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  emu.rng = x;
  return (double)((x * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void parseFaults(void) {
  const char *spec = getenv("TSMPI_SCI_FAULTS");
  emu.rng = 0x9e3779b97f4a7c15ull;
  if (spec == NULL) return;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", spec);
  for (char *item = strtok(buf, ","); item != NULL; item = strtok(NULL, ",")) {
    char *eq = strchr(item, '=');
    if (eq == NULL) continue;
    *eq = '\0';
    double v = atof(eq + 1);
    if (strcmp(item, "seq") == 0) emu.pSeq = v;
    else if (strcmp(item, "corrupt") == 0) emu.pCorrupt = v;
    else if (strcmp(item, "late") == 0) emu.pLate = v;
    else if (strcmp(item, "seed") == 0) emu.rng = (uint64_t)v * 0x9e3779b97f4a7c15ull + 1;
  }
}

void objectPath(char *out, size_t n, unsigned int nodeId, char kind, unsigned int id) {
  snprintf(out, n, "/tsmpi-%s-sci-%u-%c%u", emu.job, nodeId, kind, id);
}

void *mapFile(int fd, size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? NULL : p;
}

long futex(_Atomic int32_t *addr, int op, int32_t val, const struct timespec *timeout) {
  return syscall(SYS_futex, (int32_t *)addr, op, val, timeout, NULL, 0);
}

void SCIInitialize(unsigned int flags, sci_error_t *error) {
  (void)flags;
  pthread_mutex_lock(&emu.lock);
  if (!emu.initialized) {
    emu.nodeIndex = (unsigned int)envNumber("TSMPI_SCI_NODE", 0);
    const char *job = getenv("TSMPI_JOBID");
    snprintf(emu.job, sizeof emu.job, "%s", job != NULL && *job != '\0' ? job : "nojob");
    emu.maxSegments = (unsigned int)envNumber("TSMPI_SCI_MAX_SEGMENTS", 4096);
    emu.maxMapped = envNumber("TSMPI_SCI_MAX_MAPPED", 1ull << 40);
    emu.maxInterrupts = (unsigned int)envNumber("TSMPI_SCI_MAX_INTERRUPTS", 1024);
    emu.maxConnections = (unsigned int)envNumber("TSMPI_SCI_MAX_CONNECTIONS", 4096);
    parseFaults();
    emu.initialized = 1;
  }
  pthread_mutex_unlock(&emu.lock);
  SET(error, SCI_ERR_OK);
}

void SCITerminate(void) {}

void SCIEmuFaultCounters(sci_emu_fault_counters_t *counters) {
  pthread_mutex_lock(&emu.lock);
  *counters = emu.faults;
  pthread_mutex_unlock(&emu.lock);
}

_Atomic int32_t *aliveWord(unsigned int nodeId, int create) {
  char path[128];
  objectPath(path, sizeof path, nodeId, 'a', 0);
  int fd = shm_open(path, O_RDWR | (create ? O_CREAT : 0) | O_CLOEXEC, 0600);
  if (fd < 0) return NULL;
  if (create && ftruncate(fd, 4096) != 0) {
    close(fd);
    return NULL;
  }
  void *p = mapFile(fd, 4096);
  close(fd);
  return (_Atomic int32_t *)p;
}

void SCIOpen(sci_desc_t *sd, unsigned int flags, sci_error_t *error) {
  (void)flags;
  if (!emu.initialized) {
    SET(error, SCI_ERR_NOT_INITIALIZED);
    return;
  }
  struct sci_desc *d = calloc(1, sizeof *d);
  if (d == NULL) {
    SET(error, SCI_ERR_NOSPC);
    return;
  }
  d->open = 1;
  pthread_mutex_lock(&emu.lock);
  if (emu.alive == NULL) emu.alive = aliveWord(nodeIdOf(emu.nodeIndex), 1);
  if (emu.alive != NULL) atomic_fetch_add(emu.alive, 1);
  pthread_mutex_unlock(&emu.lock);
  *sd = d;
  SET(error, SCI_ERR_OK);
}

void SCIClose(sci_desc_t sd, unsigned int flags, sci_error_t *error) {
  (void)flags;
  if (sd == NULL || !sd->open) {
    SET(error, SCI_ERR_ILLEGAL_PARAMETER);
    return;
  }
  sd->open = 0;
  if (emu.alive != NULL) atomic_fetch_sub(emu.alive, 1);
  free(sd);
  SET(error, SCI_ERR_OK);
}

/* ---------------------------------------------------------------- local segments */

void SCICreateSegment(sci_desc_t sd, sci_local_segment_t *segment, unsigned int segmentId, unsigned int size,
                      void *callback, void *callbackArg, unsigned int flags, sci_error_t *error) {
  (void)callback;
  (void)callbackArg;
  (void)flags;
  if (sd == NULL || size == 0) {
    SET(error, SCI_ERR_ILLEGAL_PARAMETER);
    return;
  }
  if (size % MAP_ALIGN != 0) {
    SET(error, SCI_ERR_SIZE_ALIGNMENT);
    return;
  }
  pthread_mutex_lock(&emu.lock);
  int full = emu.segments >= emu.maxSegments || emu.mapped + size > emu.maxMapped;
  if (!full) {
    emu.segments++;
    emu.mapped += size;
  }
  pthread_mutex_unlock(&emu.lock);
  if (full) {
    SET(error, SCI_ERR_NOSPC);
    return;
  }
  struct sci_local_segment *s = calloc(1, sizeof *s);
  objectPath(s->path, sizeof s->path, nodeIdOf(emu.nodeIndex), 's', segmentId);
  int fd = shm_open(s->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  sci_error_t err = SCI_ERR_OK;
  if (fd < 0) err = errno == EEXIST ? SCI_ERR_SEGMENTID_USED : SCI_ERR_SYSTEM;
  else if (ftruncate(fd, HEADER_BYTES + size) != 0) err = SCI_ERR_NOSPC;
  else {
    uint8_t *p = mapFile(fd, HEADER_BYTES + size);
    if (p == NULL) err = SCI_ERR_NOSPC;
    else {
      s->header = (seg_header_t *)p;
      s->data = p + HEADER_BYTES;
      s->header->size = size;
      s->header->ownerPid = (uint32_t)getpid();
      atomic_store(&s->header->available, 0);
      atomic_store(&s->header->connections, 0);
      s->header->magic = SEG_MAGIC;
    }
  }
  if (fd >= 0) close(fd);
  if (err != SCI_ERR_OK) {
    if (fd >= 0) shm_unlink(s->path);
    free(s);
    pthread_mutex_lock(&emu.lock);
    emu.segments--;
    emu.mapped -= size;
    pthread_mutex_unlock(&emu.lock);
    SET(error, err);
    return;
  }
  s->id = segmentId;
  s->size = size;
  *segment = s;
  SET(error, SCI_ERR_OK);
}

void SCIPrepareSegment(sci_local_segment_t segment, unsigned int localAdapterNo, unsigned int flags, sci_error_t *error) {
  (void)flags;
  if (localAdapterNo != 0) {
    SET(error, SCI_ERR_NO_SUCH_ADAPTERNO);
    return;
  }
  segment->prepared = 1;
  SET(error, SCI_ERR_OK);
}

void SCISetSegmentAvailable(sci_local_segment_t segment, unsigned int localAdapterNo, unsigned int flags,
                            sci_error_t *error) {
  (void)flags;
  (void)localAdapterNo;
  if (!segment->prepared) {
    SET(error, SCI_ERR_SEGMENT_NOT_PREPARED);
    return;
  }
  atomic_store(&segment->header->available, 1);
  SET(error, SCI_ERR_OK);
}

void SCISetSegmentUnavailable(sci_local_segment_t segment, unsigned int localAdapterNo, unsigned int flags,
                              sci_error_t *error) {
  (void)flags;
  (void)localAdapterNo;
  atomic_store(&segment->header->available, 0);
  SET(error, SCI_ERR_OK);
}

void SCIRemoveSegment(sci_local_segment_t segment, unsigned int flags, sci_error_t *error) {
  (void)flags;
  if (atomic_load(&segment->header->connections) > 0 || segment->maps > 0) {
    SET(error, SCI_ERR_BUSY);
    return;
  }
  shm_unlink(segment->path);
  munmap(segment->header, HEADER_BYTES + segment->size);
  pthread_mutex_lock(&emu.lock);
  emu.segments--;
  emu.mapped -= segment->size;
  pthread_mutex_unlock(&emu.lock);
  free(segment);
  SET(error, SCI_ERR_OK);
}

/* ---------------------------------------------------------------- remote segments */

void sleepMs(unsigned int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

uint64_t nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void SCIConnectSegment(sci_desc_t sd, sci_remote_segment_t *segment, unsigned int nodeId, unsigned int segmentId,
                       unsigned int localAdapterNo, void *callback, void *callbackArg, unsigned int timeout,
                       unsigned int flags, sci_error_t *error) {
  (void)callback;
  (void)callbackArg;
  (void)flags;
  if (sd == NULL || localAdapterNo != 0) {
    SET(error, SCI_ERR_ILLEGAL_PARAMETER);
    return;
  }
  if (nodeId == 0 || nodeId % 4 != 0) {
    SET(error, SCI_ERR_ILLEGAL_NODEID);
    return;
  }
  /* A connection stands for the adapter's ATT entries and remote descriptors (003a §4.1): the
   * limit is what lets a test exhaust them and see the resource cache evict. */
  pthread_mutex_lock(&emu.lock);
  int full = emu.connections >= emu.maxConnections;
  if (!full) emu.connections++;
  pthread_mutex_unlock(&emu.lock);
  if (full) {
    SET(error, SCI_ERR_NOSPC);
    return;
  }
  char path[128];
  objectPath(path, sizeof path, nodeId, 's', segmentId);
  uint64_t deadline = timeout == SCI_INFINITE_TIMEOUT ? UINT64_MAX : nowMs() + timeout;
  for (;;) {
    int fd = shm_open(path, O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) {
      struct stat st;
      uint8_t *p = NULL;
      if (fstat(fd, &st) == 0 && (size_t)st.st_size > HEADER_BYTES) p = mapFile(fd, (size_t)st.st_size);
      close(fd);
      if (p != NULL) {
        seg_header_t *h = (seg_header_t *)p;
        if (h->magic == SEG_MAGIC && atomic_load(&h->available)) {
          struct sci_remote_segment *r = calloc(1, sizeof *r);
          r->nodeId = nodeId;
          r->id = segmentId;
          r->size = h->size;
          r->header = h;
          r->data = p + HEADER_BYTES;
          atomic_fetch_add(&h->connections, 1);
          *segment = r;
          SET(error, SCI_ERR_OK);
          return;
        }
        munmap(p, (size_t)st.st_size);
      }
    }
    if (nowMs() >= deadline) {
      pthread_mutex_lock(&emu.lock);
      emu.connections--;
      pthread_mutex_unlock(&emu.lock);
      SET(error, fd >= 0 ? SCI_ERR_TIMEOUT : SCI_ERR_NO_SUCH_SEGMENT);
      return;
    }
    sleepMs(1);
  }
}

void SCIDisconnectSegment(sci_remote_segment_t segment, unsigned int flags, sci_error_t *error) {
  (void)flags;
  if (segment->maps > 0) {
    SET(error, SCI_ERR_BUSY);
    return;
  }
  atomic_fetch_sub(&segment->header->connections, 1);
  munmap(segment->header, HEADER_BYTES + segment->size);
  free(segment);
  pthread_mutex_lock(&emu.lock);
  emu.connections--;
  pthread_mutex_unlock(&emu.lock);
  SET(error, SCI_ERR_OK);
}

unsigned int SCIGetRemoteSegmentSize(sci_remote_segment_t segment) { return segment->size; }

/* ---------------------------------------------------------------- maps */

static void *mapRange(uint8_t *data, unsigned int segSize, int *maps, sci_map_t *map, unsigned int offset,
                      unsigned int size, sci_error_t *error) {
  if (offset % MAP_ALIGN != 0) {
    SET(error, SCI_ERR_OFFSET_ALIGNMENT);
    return NULL;
  }
  if (size % MAP_ALIGN != 0) {
    SET(error, SCI_ERR_SIZE_ALIGNMENT);
    return NULL;
  }
  if (size == 0 || (unsigned long long)offset + size > segSize) {
    SET(error, SCI_ERR_OUT_OF_RANGE);
    return NULL;
  }
  struct sci_map *m = calloc(1, sizeof *m);
  m->base = data + offset;
  m->size = size;
  m->mapsCounter = maps;
  (*maps)++;
  *map = m;
  SET(error, SCI_ERR_OK);
  return m->base;
}

volatile void *SCIMapRemoteSegment(sci_remote_segment_t segment, sci_map_t *map, unsigned int offset, unsigned int size,
                                   void *addr, unsigned int flags, sci_error_t *error) {
  (void)addr;
  (void)flags;
  return mapRange(segment->data, segment->size, &segment->maps, map, offset, size, error);
}

void *SCIMapLocalSegment(sci_local_segment_t segment, sci_map_t *map, unsigned int offset, unsigned int size, void *addr,
                         unsigned int flags, sci_error_t *error) {
  (void)addr;
  (void)flags;
  return mapRange(segment->data, segment->size, &segment->maps, map, offset, size, error);
}

void SCIUnmapSegment(sci_map_t map, unsigned int flags, sci_error_t *error) {
  (void)flags;
  (*map->mapsCounter)--;
  free(map);
  SET(error, SCI_ERR_OK);
}

/* ---------------------------------------------------------------- queries */

int SCIProbeNode(sci_desc_t sd, unsigned int localAdapterNo, unsigned int nodeId, unsigned int flags, sci_error_t *error) {
  (void)flags;
  if (sd == NULL || localAdapterNo != 0) {
    SET(error, SCI_ERR_ILLEGAL_PARAMETER);
    return 0;
  }
  _Atomic int32_t *w = aliveWord(nodeId, 0);
  int alive = w != NULL && atomic_load(w) > 0;
  if (w != NULL) munmap((void *)w, 4096);
  SET(error, SCI_ERR_OK);
  return alive;
}

void SCIQuery(unsigned int command, void *data, unsigned int flags, sci_error_t *error) {
  (void)flags;
  if (command == SCI_Q_ADAPTER) {
    sci_query_adapter_t *q = data;
    unsigned int *out = q->data;
    if (q->localAdapterNo != 0) {
      SET(error, SCI_ERR_NO_SUCH_ADAPTERNO);
      return;
    }
    if (q->subcommand == SCI_Q_ADAPTER_NODEID) *out = nodeIdOf(emu.nodeIndex);
    else if (q->subcommand == SCI_Q_ADAPTER_DMA_SIZE_ALIGNMENT) *out = DMA_ALIGN;
    else if (q->subcommand == SCI_Q_ADAPTER_DMA_OFFSET_ALIGNMENT) *out = DMA_ALIGN;
    else if (q->subcommand == SCI_Q_ADAPTER_DMA_MTU) *out = 1u << 20;
    else if (q->subcommand == SCI_Q_ADAPTER_SUGGESTED_MIN_DMA_SIZE) *out = 8192;
    else {
      SET(error, SCI_ERR_ILLEGAL_QUERY);
      return;
    }
    SET(error, SCI_ERR_OK);
    return;
  }
  if (command == SCI_Q_VENDORID || command == SCI_Q_API) {
    sci_query_string_t *q = data;
    snprintf(q->str, q->length, "%s", command == SCI_Q_VENDORID ? "tsmpi SISCI emulation" : "SISCI emulation 1.0");
    SET(error, SCI_ERR_OK);
    return;
  }
  SET(error, SCI_ERR_ILLEGAL_QUERY);
}
