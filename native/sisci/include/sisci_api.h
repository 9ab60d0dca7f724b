/*
 * The SISCI C API (Dolphin Interconnect Solutions), the subset SCI-MPICH's device uses, with
 * Dolphin's function names, argument order and flags, implemented by tsmpi's emulation over
 * POSIX shared memory (sisci_emu.c). A program written against this header links against
 * Dolphin's libsisci unchanged; tsmpi's addon loads either with dlopen (TSMPI_SISCI_LIB).
 *
 * Flags are `extern const unsigned int`, as in Dolphin's header (their values are private).
 */
#ifndef TSMPI_SISCI_API_H
#define TSMPI_SISCI_API_H

#include <stddef.h>

#include "sisci_error.h"
#include "sisci_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCI_INFINITE_TIMEOUT 0xffffffffu

extern const unsigned int SCI_FLAG_FIXED_INTNO;
extern const unsigned int SCI_FLAG_SHARED_INT;
extern const unsigned int SCI_FLAG_USE_CALLBACK;
extern const unsigned int SCI_FLAG_DMA_READ;
extern const unsigned int SCI_FLAG_READONLY_MAP;
extern const unsigned int SCI_FLAG_FORCE_DISCONNECT;
extern const unsigned int SCI_FLAG_NO_FLUSH;
extern const unsigned int SCI_FLAG_NO_STORE_BARRIER;
extern const unsigned int SCI_FLAG_ERROR_CHECK;

/* SCIQuery commands (SCI_Q_ADAPTER with a sci_query_adapter_t). */
extern const unsigned int SCI_Q_ADAPTER;
extern const unsigned int SCI_Q_ADAPTER_NODEID;
extern const unsigned int SCI_Q_ADAPTER_DMA_SIZE_ALIGNMENT;
extern const unsigned int SCI_Q_ADAPTER_DMA_OFFSET_ALIGNMENT;
extern const unsigned int SCI_Q_ADAPTER_DMA_MTU;
extern const unsigned int SCI_Q_ADAPTER_SUGGESTED_MIN_DMA_SIZE;
extern const unsigned int SCI_Q_VENDORID;
extern const unsigned int SCI_Q_API;

typedef struct {
  unsigned int localAdapterNo;
  unsigned int subcommand;
  void *data;
} sci_query_adapter_t;

typedef struct {
  char *str;
  unsigned int length;
} sci_query_string_t;

typedef sci_callback_action_t (*sci_cb_dma_t)(void *arg, sci_dma_queue_t queue, sci_error_t status);

void SCIInitialize(unsigned int flags, sci_error_t *error);
void SCITerminate(void);
void SCIOpen(sci_desc_t *sd, unsigned int flags, sci_error_t *error);
void SCIClose(sci_desc_t sd, unsigned int flags, sci_error_t *error);

void SCICreateSegment(sci_desc_t sd, sci_local_segment_t *segment, unsigned int segmentId, unsigned int size,
                      void *callback, void *callbackArg, unsigned int flags, sci_error_t *error);
void SCIPrepareSegment(sci_local_segment_t segment, unsigned int localAdapterNo, unsigned int flags, sci_error_t *error);
void SCISetSegmentAvailable(sci_local_segment_t segment, unsigned int localAdapterNo, unsigned int flags, sci_error_t *error);
void SCISetSegmentUnavailable(sci_local_segment_t segment, unsigned int localAdapterNo, unsigned int flags,
                              sci_error_t *error);
void SCIRemoveSegment(sci_local_segment_t segment, unsigned int flags, sci_error_t *error);

void SCIConnectSegment(sci_desc_t sd, sci_remote_segment_t *segment, unsigned int nodeId, unsigned int segmentId,
                       unsigned int localAdapterNo, void *callback, void *callbackArg, unsigned int timeout,
                       unsigned int flags, sci_error_t *error);
void SCIDisconnectSegment(sci_remote_segment_t segment, unsigned int flags, sci_error_t *error);
unsigned int SCIGetRemoteSegmentSize(sci_remote_segment_t segment);

volatile void *SCIMapRemoteSegment(sci_remote_segment_t segment, sci_map_t *map, unsigned int offset, unsigned int size,
                                   void *addr, unsigned int flags, sci_error_t *error);
void *SCIMapLocalSegment(sci_local_segment_t segment, sci_map_t *map, unsigned int offset, unsigned int size, void *addr,
                         unsigned int flags, sci_error_t *error);
void SCIUnmapSegment(sci_map_t map, unsigned int flags, sci_error_t *error);

void SCICreateMapSequence(sci_map_t map, sci_sequence_t *sequence, unsigned int flags, sci_error_t *error);
void SCIRemoveSequence(sci_sequence_t sequence, unsigned int flags, sci_error_t *error);
sci_sequence_status_t SCIStartSequence(sci_sequence_t sequence, unsigned int flags, sci_error_t *error);
sci_sequence_status_t SCICheckSequence(sci_sequence_t sequence, unsigned int flags, sci_error_t *error);
void SCIStoreBarrier(sci_sequence_t sequence, unsigned int flags);
void SCIMemCpy(sci_sequence_t sequence, void *memAddr, sci_map_t remoteMap, unsigned int remoteOffset, unsigned int size,
               unsigned int flags, sci_error_t *error);

void SCICreateDMAQueue(sci_desc_t sd, sci_dma_queue_t *dq, unsigned int localAdapterNo, unsigned int maxEntries,
                       unsigned int flags, sci_error_t *error);
void SCIRemoveDMAQueue(sci_dma_queue_t dq, unsigned int flags, sci_error_t *error);
sci_dma_queue_state_t SCIEnqueueDMATransfer(sci_dma_queue_t dq, sci_local_segment_t localSegment,
                                            sci_remote_segment_t remoteSegment, unsigned int localOffset,
                                            unsigned int remoteOffset, unsigned int size, unsigned int flags,
                                            sci_error_t *error);
void SCIPostDMAQueue(sci_dma_queue_t dq, sci_cb_dma_t callback, void *callbackArg, unsigned int flags, sci_error_t *error);
void SCIResetDMAQueue(sci_dma_queue_t dq, unsigned int flags, sci_error_t *error);
sci_dma_queue_state_t SCIDMAQueueState(sci_dma_queue_t dq);
sci_dma_queue_state_t SCIWaitForDMAQueue(sci_dma_queue_t dq, unsigned int timeout, unsigned int flags, sci_error_t *error);

void SCICreateInterrupt(sci_desc_t sd, sci_local_interrupt_t *interrupt, unsigned int localAdapterNo,
                        unsigned int *interruptNo, void *callback, void *callbackArg, unsigned int flags,
                        sci_error_t *error);
void SCIRemoveInterrupt(sci_local_interrupt_t interrupt, unsigned int flags, sci_error_t *error);
void SCIWaitForInterrupt(sci_local_interrupt_t interrupt, unsigned int timeout, unsigned int flags, sci_error_t *error);
void SCIConnectInterrupt(sci_desc_t sd, sci_remote_interrupt_t *interrupt, unsigned int nodeId,
                         unsigned int localAdapterNo, unsigned int interruptNo, unsigned int timeout, unsigned int flags,
                         sci_error_t *error);
void SCIDisconnectInterrupt(sci_remote_interrupt_t interrupt, unsigned int flags, sci_error_t *error);
void SCITriggerInterrupt(sci_remote_interrupt_t interrupt, unsigned int flags, sci_error_t *error);

int SCIProbeNode(sci_desc_t sd, unsigned int localAdapterNo, unsigned int nodeId, unsigned int flags, sci_error_t *error);
void SCIQuery(unsigned int command, void *data, unsigned int flags, sci_error_t *error);

/* Emulation only (not in Dolphin's API): injected-fault counters, for tests and tsmpi's stats. */
typedef struct {
  unsigned long long sequenceErrors;
  unsigned long long corruptedBytes;
  unsigned long long lateStores;
} sci_emu_fault_counters_t;
void SCIEmuFaultCounters(sci_emu_fault_counters_t *counters);

#ifdef __cplusplus
}
#endif

#endif
