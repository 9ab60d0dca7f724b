/*
 * Tests of the SISCI emulation through its C API, with real processes as emulated nodes: the
 * parent is node 4 (TSMPI_SCI_NODE=0), forked children are node 8. Prints one "ok <name>" per
 * passed check and exits non-zero at the first failure (run by test/unit/sisci/emu.test.ts).
 *
 *   emu_test <case>   cases: segments, faults, interrupts, dma, limits
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sisci_api.h"

static int failures = 0;

#define CHECK(cond, ...)                                \
  do {                                                  \
    if (!(cond)) {                                      \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                     \
      fprintf(stderr, "\n");                            \
      exit(1);                                          \
    }                                                   \
  } while (0)
#define OK(err, what) CHECK((err) == SCI_ERR_OK, "%s: error 0x%x", what, (unsigned)(err))

static sci_desc_t openAs(unsigned int node) {
  char v[16];
  snprintf(v, sizeof v, "%u", node);
  setenv("TSMPI_SCI_NODE", v, 1);
  sci_error_t err;
  SCIInitialize(0, &err);
  OK(err, "SCIInitialize");
  sci_desc_t sd;
  SCIOpen(&sd, 0, &err);
  OK(err, "SCIOpen");
  return sd;
}

static unsigned int nodeId(void) {
  unsigned int id = 0;
  sci_query_adapter_t q = {0, SCI_Q_ADAPTER_NODEID, &id};
  sci_error_t err;
  SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
  OK(err, "SCIQuery");
  return id;
}

static int waitChild(pid_t pid) {
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Node 8 exports segment 3 with a pattern and waits until node 4 wrote its answer. */
static void caseSegments(void) {
  pid_t child = fork();
  if (child == 0) {
    sci_desc_t sd = openAs(1);
    CHECK(nodeId() == 8, "child node id %u", nodeId());
    sci_error_t err;
    sci_local_segment_t seg;
    SCICreateSegment(sd, &seg, 3, 4096, NULL, NULL, 0, &err);
    OK(err, "SCICreateSegment");
    sci_local_segment_t dup;
    SCICreateSegment(sd, &dup, 3, 4096, NULL, NULL, 0, &err);
    CHECK(err == SCI_ERR_SEGMENTID_USED, "second segment 3: 0x%x", err);
    sci_map_t map;
    volatile int *mem = SCIMapLocalSegment(seg, &map, 0, 4096, NULL, 0, &err);
    OK(err, "SCIMapLocalSegment");
    for (int i = 0; i < 1024; i++) mem[i] = i * 3;
    SCISetSegmentAvailable(seg, 0, 0, &err);
    CHECK(err == SCI_ERR_SEGMENT_NOT_PREPARED, "available before prepare: 0x%x", err);
    SCIPrepareSegment(seg, 0, 0, &err);
    OK(err, "SCIPrepareSegment");
    SCISetSegmentAvailable(seg, 0, 0, &err);
    OK(err, "SCISetSegmentAvailable");
    time_t t0 = time(NULL);
    while (mem[1023] != -1 && time(NULL) - t0 < 10) usleep(1000);
    CHECK(mem[1023] == -1, "node 4's store never arrived");
    CHECK(mem[0] == 12345, "node 4's first word %d", mem[0]);
    /* Busy while node 4 is connected. */
    SCIUnmapSegment(map, 0, &err);
    SCIRemoveSegment(seg, 0, &err);
    CHECK(err == SCI_ERR_BUSY, "remove while connected: 0x%x", err);
    while (mem[1] != -2 && time(NULL) - t0 < 10) usleep(1000); /* node 4 disconnected */
    usleep(20000);
    SCIRemoveSegment(seg, 0, &err);
    OK(err, "SCIRemoveSegment");
    exit(0);
  }
  sci_desc_t sd = openAs(0);
  CHECK(nodeId() == 4, "parent node id %u", nodeId());
  sci_error_t err;
  sci_remote_segment_t none;
  SCIConnectSegment(sd, &none, 8, 77, 0, NULL, NULL, 50, 0, &err);
  CHECK(err == SCI_ERR_NO_SUCH_SEGMENT, "connect to a segment nobody made: 0x%x", err);
  SCIConnectSegment(sd, &none, 7, 3, 0, NULL, NULL, 0, 0, &err);
  CHECK(err == SCI_ERR_ILLEGAL_NODEID, "node id 7: 0x%x", err);
  sci_remote_segment_t rs;
  SCIConnectSegment(sd, &rs, 8, 3, 0, NULL, NULL, 5000, 0, &err);
  OK(err, "SCIConnectSegment");
  CHECK(SCIGetRemoteSegmentSize(rs) == 4096, "remote size %u", SCIGetRemoteSegmentSize(rs));
  sci_map_t map;
  SCIMapRemoteSegment(rs, &map, 2, 8, NULL, 0, &err);
  CHECK(err == SCI_ERR_OFFSET_ALIGNMENT, "offset 2: 0x%x", err);
  SCIMapRemoteSegment(rs, &map, 4092, 8, NULL, 0, &err);
  CHECK(err == SCI_ERR_OUT_OF_RANGE, "past the end: 0x%x", err);
  volatile int *mem = SCIMapRemoteSegment(rs, &map, 0, 4096, NULL, 0, &err);
  OK(err, "SCIMapRemoteSegment");
  for (int i = 0; i < 1024; i++) CHECK(mem[i] == i * 3, "remote word %d is %d", i, mem[i]);
  sci_sequence_t seq;
  SCICreateMapSequence(map, &seq, 0, &err);
  OK(err, "SCICreateMapSequence");
  CHECK(SCIStartSequence(seq, 0, &err) == SCI_SEQ_OK, "start sequence");
  int value = 12345;
  SCIMemCpy(seq, &value, map, 0, 4, 0, &err);
  OK(err, "SCIMemCpy");
  SCIStoreBarrier(seq, 0);
  CHECK(SCICheckSequence(seq, 0, &err) == SCI_SEQ_OK, "check sequence");
  mem[1023] = -1;
  SCIDisconnectSegment(rs, 0, &err);
  CHECK(err == SCI_ERR_BUSY, "disconnect while mapped: 0x%x", err);
  int alive = SCIProbeNode(sd, 0, 8, 0, &err);
  CHECK(alive == 1, "node 8 alive");
  CHECK(SCIProbeNode(sd, 0, 12, 0, &err) == 0, "node 12 alive");
  usleep(50000);
  mem[1] = -2;
  SCIRemoveSequence(seq, 0, &err);
  SCIUnmapSegment(map, 0, &err);
  SCIDisconnectSegment(rs, 0, &err);
  OK(err, "SCIDisconnectSegment");
  CHECK(waitChild(child) == 0, "node 8 failed");
  printf("ok segments\n");
}

/* Fault injection: every sequence check fails (seq=1), then every copy is corrupted and seen. */
static void caseFaults(void) {
  setenv("TSMPI_SCI_FAULTS", "corrupt=1,late=1,seed=7", 1);
  sci_desc_t sd = openAs(0);
  sci_error_t err;
  sci_local_segment_t seg;
  SCICreateSegment(sd, &seg, 9, 256, NULL, NULL, 0, &err);
  OK(err, "create");
  SCIPrepareSegment(seg, 0, 0, &err);
  SCISetSegmentAvailable(seg, 0, 0, &err);
  sci_remote_segment_t rs;
  SCIConnectSegment(sd, &rs, 4, 9, 0, NULL, NULL, 1000, 0, &err);
  OK(err, "connect to own node");
  sci_map_t map;
  volatile unsigned char *mem = SCIMapRemoteSegment(rs, &map, 0, 256, NULL, 0, &err);
  OK(err, "map");
  sci_sequence_t seq;
  SCICreateMapSequence(map, &seq, 0, &err);
  unsigned char src[64];
  for (int i = 0; i < 64; i++) src[i] = (unsigned char)i;
  SCIStartSequence(seq, 0, &err);
  SCIMemCpy(seq, src, map, 0, 64, 0, &err);
  /* Late: the tail is not there before the barrier. */
  int tailMissing = 0;
  for (int i = 56; i < 64; i++) if (mem[i] != i) tailMissing = 1;
  CHECK(tailMissing, "a late store was visible before the store barrier");
  CHECK(SCICheckSequence(seq, 0, &err) == SCI_SEQ_RETRIABLE, "a corrupted transfer passed its check");
  int wrong = 0;
  for (int i = 0; i < 64; i++) wrong += mem[i] != i;
  CHECK(wrong == 1, "%d bytes wrong after a one-byte corruption", wrong);
  sci_emu_fault_counters_t c;
  SCIEmuFaultCounters(&c);
  CHECK(c.corruptedBytes == 1 && c.lateStores == 1, "counters corrupt %llu late %llu", c.corruptedBytes, c.lateStores);
  printf("ok faults\n");
  SCIRemoveSequence(seq, 0, &err);
  SCIUnmapSegment(map, 0, &err);
  SCIDisconnectSegment(rs, 0, &err);
  SCIRemoveSegment(seg, 0, &err);
  OK(err, "remove");
}

/* Interrupts across processes: triggers coalesce, waits time out. */
static void caseInterrupts(void) {
  int ready[2], go[2];
  if (pipe(ready) != 0 || pipe(go) != 0) exit(2);
  pid_t child = fork();
  if (child == 0) {
    sci_desc_t sd = openAs(1);
    sci_error_t err;
    sci_local_interrupt_t li;
    unsigned int no = 5;
    SCICreateInterrupt(sd, &li, 0, &no, NULL, NULL, SCI_FLAG_FIXED_INTNO, &err);
    OK(err, "SCICreateInterrupt");
    SCIWaitForInterrupt(li, 30, 0, &err);
    CHECK(err == SCI_ERR_TIMEOUT, "wait without trigger: 0x%x", err);
    char b = 1;
    if (write(ready[1], &b, 1) != 1) exit(2);
    if (read(go[0], &b, 1) != 1) exit(2); /* node 4 triggered three times */
    SCIWaitForInterrupt(li, 1000, 0, &err);
    OK(err, "wait after triggers");
    SCIWaitForInterrupt(li, 30, 0, &err);
    CHECK(err == SCI_ERR_TIMEOUT, "three triggers were counted, not coalesced: 0x%x", err);
    if (write(ready[1], &b, 1) != 1) exit(2);
    SCIWaitForInterrupt(li, 5000, 0, &err); /* woken by a trigger while asleep */
    OK(err, "wait woken by a trigger");
    SCIRemoveInterrupt(li, 0, &err);
    exit(0);
  }
  sci_desc_t sd = openAs(0);
  sci_error_t err;
  char b;
  if (read(ready[0], &b, 1) != 1) exit(2);
  sci_remote_interrupt_t ri;
  SCIConnectInterrupt(sd, &ri, 8, 0, 6, 20, 0, &err);
  CHECK(err == SCI_ERR_NO_SUCH_INTNO, "connect to interrupt 6: 0x%x", err);
  SCIConnectInterrupt(sd, &ri, 8, 0, 5, 1000, 0, &err);
  OK(err, "SCIConnectInterrupt");
  for (int i = 0; i < 3; i++) SCITriggerInterrupt(ri, 0, &err);
  if (write(go[1], &b, 1) != 1) exit(2);
  if (read(ready[0], &b, 1) != 1) exit(2);
  usleep(50000);
  SCITriggerInterrupt(ri, 0, &err);
  OK(err, "trigger");
  SCIDisconnectInterrupt(ri, 0, &err);
  CHECK(waitChild(child) == 0, "node 8 failed");
  printf("ok interrupts\n");
}

static volatile int callbackSeen = 0;
static sci_callback_action_t onDma(void *arg, sci_dma_queue_t q, sci_error_t status) {
  (void)q;
  callbackSeen = status == SCI_ERR_OK ? *(int *)arg : -1;
  return SCI_CALLBACK_CANCEL;
}

/* DMA write and read between a local and a remote segment, with the completion callback. */
static void caseDma(void) {
  sci_desc_t sd = openAs(0);
  sci_error_t err;
  sci_local_segment_t a, b;
  SCICreateSegment(sd, &a, 20, 1 << 16, NULL, NULL, 0, &err);
  SCICreateSegment(sd, &b, 21, 1 << 16, NULL, NULL, 0, &err);
  OK(err, "create");
  SCIPrepareSegment(b, 0, 0, &err);
  SCISetSegmentAvailable(b, 0, 0, &err);
  sci_remote_segment_t rb;
  SCIConnectSegment(sd, &rb, 4, 21, 0, NULL, NULL, 1000, 0, &err);
  OK(err, "connect");
  sci_map_t ma, mb;
  unsigned char *pa = SCIMapLocalSegment(a, &ma, 0, 1 << 16, NULL, 0, &err);
  unsigned char *pb = SCIMapLocalSegment(b, &mb, 0, 1 << 16, NULL, 0, &err);
  for (int i = 0; i < 1 << 16; i++) pa[i] = (unsigned char)(i * 7);
  sci_dma_queue_t q;
  SCICreateDMAQueue(sd, &q, 0, 4, 0, &err);
  OK(err, "SCICreateDMAQueue");
  for (int k = 0; k < 4; k++) {
    SCIEnqueueDMATransfer(q, a, rb, (unsigned)k * 8192, (unsigned)k * 8192 + 8, 8192, 0, &err);
    OK(err, "enqueue");
  }
  SCIEnqueueDMATransfer(q, a, rb, 0, 0, 64, 0, &err);
  CHECK(err == SCI_ERR_MAX_ENTRIES, "fifth entry of a 4-entry queue: 0x%x", err);
  SCIEnqueueDMATransfer(q, a, rb, 4, 0, 64, 0, &err);
  int arg = 42;
  SCIPostDMAQueue(q, onDma, &arg, 0, &err);
  OK(err, "post");
  sci_dma_queue_state_t st = SCIWaitForDMAQueue(q, 5000, 0, &err);
  OK(err, "wait");
  CHECK(st == SCI_DMAQUEUE_DONE, "state %d", st);
  for (int i = 0; i < 4 * 8192; i++) CHECK(pb[i + 8] == (unsigned char)(i * 7), "DMA byte %d", i);
  for (int t = 0; t < 1000 && callbackSeen == 0; t++) usleep(1000);
  CHECK(callbackSeen == 42, "callback %d", callbackSeen);
  SCIResetDMAQueue(q, 0, &err);
  memset(pa, 0, 64);
  SCIEnqueueDMATransfer(q, a, rb, 0, 8, 64, SCI_FLAG_DMA_READ, &err);
  SCIPostDMAQueue(q, NULL, NULL, 0, &err);
  SCIWaitForDMAQueue(q, 5000, 0, &err);
  for (int i = 0; i < 64; i++) CHECK(pa[i] == (unsigned char)(i * 7), "DMA read byte %d", i);
  SCIRemoveDMAQueue(q, 0, &err);
  OK(err, "remove queue");
  SCIUnmapSegment(ma, 0, &err);
  SCIUnmapSegment(mb, 0, &err);
  SCIDisconnectSegment(rb, 0, &err);
  SCIRemoveSegment(a, 0, &err);
  SCIRemoveSegment(b, 0, &err);
  OK(err, "remove");
  printf("ok dma\n");
}

/* Limits: a third segment, and bytes beyond the mapped limit, give SCI_ERR_NOSPC. */
static void caseLimits(void) {
  setenv("TSMPI_SCI_MAX_SEGMENTS", "2", 1);
  setenv("TSMPI_SCI_MAX_MAPPED", "8192", 1);
  setenv("TSMPI_SCI_MAX_INTERRUPTS", "1", 1);
  sci_desc_t sd = openAs(0);
  sci_error_t err;
  sci_local_segment_t s1, s2, s3;
  SCICreateSegment(sd, &s1, 30, 4096, NULL, NULL, 0, &err);
  OK(err, "first");
  SCICreateSegment(sd, &s2, 31, 8192, NULL, NULL, 0, &err);
  CHECK(err == SCI_ERR_NOSPC, "beyond the mapped bytes: 0x%x", err);
  SCICreateSegment(sd, &s2, 31, 4096, NULL, NULL, 0, &err);
  OK(err, "second");
  SCICreateSegment(sd, &s3, 32, 4, NULL, NULL, 0, &err);
  CHECK(err == SCI_ERR_NOSPC, "third segment: 0x%x", err);
  SCIRemoveSegment(s2, 0, &err);
  SCICreateSegment(sd, &s3, 32, 4096, NULL, NULL, 0, &err);
  OK(err, "a segment after one was removed");
  sci_local_interrupt_t i1, i2;
  unsigned int n1 = 0, n2 = 0;
  SCICreateInterrupt(sd, &i1, 0, &n1, NULL, NULL, 0, &err);
  OK(err, "first interrupt");
  SCICreateInterrupt(sd, &i2, 0, &n2, NULL, NULL, 0, &err);
  CHECK(err == SCI_ERR_NOSPC, "second interrupt: 0x%x", err);
  SCIRemoveInterrupt(i1, 0, &err);
  SCIRemoveSegment(s1, 0, &err);
  SCIRemoveSegment(s3, 0, &err);
  OK(err, "remove");
  printf("ok limits\n");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: emu_test segments|faults|interrupts|dma|limits\n");
    return 2;
  }
  if (strcmp(argv[1], "segments") == 0) caseSegments();
  else if (strcmp(argv[1], "faults") == 0) caseFaults();
  else if (strcmp(argv[1], "interrupts") == 0) caseInterrupts();
  else if (strcmp(argv[1], "dma") == 0) caseDma();
  else if (strcmp(argv[1], "limits") == 0) caseLimits();
  else return 2;
  return failures;
}
