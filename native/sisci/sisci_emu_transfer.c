/*
 * The emulation's transfers: sequences (SCIMemCpy, store barriers, sequence checks) and DMA
 * queues. Every copy goes through faultyCopy, which injects TSMPI_SCI_FAULTS' corrupt and late
 * faults (sisci_emu.c says what they imitate).
 */
#include "sisci_emu.h"

/* ---------------------------------------------------------------- sequences */

void SCICreateMapSequence(sci_map_t map, sci_sequence_t *sequence, unsigned int flags, sci_error_t *error) {
  (void)flags;
  struct sci_sequence *q = calloc(1, sizeof *q);
  q->map = map;
  *sequence = q;
  SET(error, SCI_ERR_OK);
}

void SCIRemoveSequence(sci_sequence_t sequence, unsigned int flags, sci_error_t *error) {
  (void)flags;
  free(sequence);
  SET(error, SCI_ERR_OK);
}

static void flushLate(sci_sequence_t q) {
  for (int i = 0; i < q->lateCount; i++) memcpy(q->late[i].dst, q->late[i].bytes, q->late[i].len);
  q->lateCount = 0;
  atomic_thread_fence(memory_order_seq_cst);
}

sci_sequence_status_t SCIStartSequence(sci_sequence_t sequence, unsigned int flags, sci_error_t *error) {
  (void)flags;
  sequence->failed = 0;
  SET(error, SCI_ERR_OK);
  return SCI_SEQ_OK;
}

sci_sequence_status_t SCICheckSequence(sci_sequence_t sequence, unsigned int flags, sci_error_t *error) {
  if ((flags & SCI_FLAG_NO_STORE_BARRIER) == 0) flushLate(sequence);
  SET(error, SCI_ERR_OK);
  int injected = 0;
  if (emu.pSeq > 0) {
    pthread_mutex_lock(&emu.lock);
    injected = chance() < emu.pSeq;
    if (injected) emu.faults.sequenceErrors++;
    pthread_mutex_unlock(&emu.lock);
  }
  if (sequence->failed || injected) {
    sequence->failed = 0;
    return SCI_SEQ_RETRIABLE;
  }
  return SCI_SEQ_OK;
}

void SCIStoreBarrier(sci_sequence_t sequence, unsigned int flags) {
  (void)flags;
  flushLate(sequence);
}

/* One transfer with the injected faults: a flipped byte (reported by the next check), a late tail. */
static void faultyCopy(sci_sequence_t q, uint8_t *dst, const uint8_t *src, unsigned int size) {
  if (emu.pCorrupt == 0 && emu.pLate == 0) {
    /* No faults configured: no lock on the message path. */
    memcpy(dst, src, size);
    return;
  }
  pthread_mutex_lock(&emu.lock);
  int corrupt = emu.pCorrupt > 0 && size > 0 && chance() < emu.pCorrupt;
  unsigned int at = corrupt ? (unsigned int)(chance() * size) % size : 0;
  int late = q != NULL && emu.pLate > 0 && size > LATE_TAIL && q->lateCount < MAX_PENDING_LATE && chance() < emu.pLate;
  if (corrupt) emu.faults.corruptedBytes++;
  if (late) emu.faults.lateStores++;
  pthread_mutex_unlock(&emu.lock);
  if (late) {
    late_store_t *l = &q->late[q->lateCount++];
    l->dst = dst + size - LATE_TAIL;
    l->len = LATE_TAIL;
    memcpy(l->bytes, src + size - LATE_TAIL, LATE_TAIL);
    memcpy(dst, src, size - LATE_TAIL);
  } else {
    memcpy(dst, src, size);
  }
  if (corrupt) {
    if (late && at >= size - LATE_TAIL) q->late[q->lateCount - 1].bytes[at - (size - LATE_TAIL)] ^= 0x5a;
    else dst[at] ^= 0x5a;
    if (q != NULL) q->failed = 1;
  }
}

void SCIMemCpy(sci_sequence_t sequence, void *memAddr, sci_map_t remoteMap, unsigned int remoteOffset, unsigned int size,
               unsigned int flags, sci_error_t *error) {
  (void)flags;
  if ((unsigned long long)remoteOffset + size > remoteMap->size) {
    SET(error, SCI_ERR_OUT_OF_RANGE);
    return;
  }
  faultyCopy(sequence, remoteMap->base + remoteOffset, memAddr, size);
  SET(error, SCI_ERR_OK);
}

/* ---------------------------------------------------------------- DMA */

void SCICreateDMAQueue(sci_desc_t sd, sci_dma_queue_t *dq, unsigned int localAdapterNo, unsigned int maxEntries,
                       unsigned int flags, sci_error_t *error) {
  (void)flags;
  if (sd == NULL || localAdapterNo != 0 || maxEntries == 0) {
    SET(error, SCI_ERR_ILLEGAL_PARAMETER);
    return;
  }
  struct sci_dma_queue *q = calloc(1, sizeof *q);
  q->maxEntries = maxEntries;
  q->entries = calloc(maxEntries, sizeof *q->entries);
  atomic_store(&q->state, SCI_DMAQUEUE_IDLE);
  pthread_mutex_init(&q->lock, NULL);
  pthread_cond_init(&q->done, NULL);
  *dq = q;
  SET(error, SCI_ERR_OK);
}

static void joinWorker(sci_dma_queue_t dq) {
  if (dq->workerStarted) {
    pthread_join(dq->worker, NULL);
    dq->workerStarted = 0;
  }
}

void SCIRemoveDMAQueue(sci_dma_queue_t dq, unsigned int flags, sci_error_t *error) {
  (void)flags;
  if (atomic_load(&dq->state) == SCI_DMAQUEUE_POSTED) {
    SET(error, SCI_ERR_BUSY);
    return;
  }
  joinWorker(dq);
  pthread_mutex_destroy(&dq->lock);
  pthread_cond_destroy(&dq->done);
  free(dq->entries);
  free(dq);
  SET(error, SCI_ERR_OK);
}

sci_dma_queue_state_t SCIEnqueueDMATransfer(sci_dma_queue_t dq, sci_local_segment_t localSegment,
                                            sci_remote_segment_t remoteSegment, unsigned int localOffset,
                                            unsigned int remoteOffset, unsigned int size, unsigned int flags,
                                            sci_error_t *error) {
  int state = atomic_load(&dq->state);
  if (state == SCI_DMAQUEUE_POSTED) {
    SET(error, SCI_ERR_BUSY);
    return (sci_dma_queue_state_t)state;
  }
  if (dq->count >= dq->maxEntries) {
    SET(error, SCI_ERR_MAX_ENTRIES);
    return (sci_dma_queue_state_t)state;
  }
  if (localOffset % DMA_ALIGN != 0 || remoteOffset % DMA_ALIGN != 0) {
    SET(error, SCI_ERR_OFFSET_ALIGNMENT);
    return (sci_dma_queue_state_t)state;
  }
  if (size % DMA_ALIGN != 0) {
    SET(error, SCI_ERR_SIZE_ALIGNMENT);
    return (sci_dma_queue_state_t)state;
  }
  if ((unsigned long long)localOffset + size > localSegment->size ||
      (unsigned long long)remoteOffset + size > remoteSegment->size) {
    SET(error, SCI_ERR_OUT_OF_RANGE);
    return (sci_dma_queue_state_t)state;
  }
  dma_entry_t *e = &dq->entries[dq->count++];
  e->local = localSegment->data + localOffset;
  e->remote = remoteSegment->data + remoteOffset;
  e->size = size;
  e->read = (flags & SCI_FLAG_DMA_READ) != 0;
  atomic_store(&dq->state, SCI_DMAQUEUE_GATHER);
  SET(error, SCI_ERR_OK);
  return SCI_DMAQUEUE_GATHER;
}

static void *dmaWorker(void *arg) {
  sci_dma_queue_t dq = arg;
  struct sci_sequence seq;
  memset(&seq, 0, sizeof seq);
  for (unsigned int i = 0; i < dq->count; i++) {
    dma_entry_t *e = &dq->entries[i];
    if (e->read) faultyCopy(&seq, e->local, e->remote, e->size);
    else faultyCopy(&seq, e->remote, e->local, e->size);
  }
  flushLate(&seq);
  pthread_mutex_lock(&dq->lock);
  dq->status = seq.failed ? SCI_ERR_TRANSFER_FAILED : SCI_ERR_OK;
  atomic_store(&dq->state, seq.failed ? SCI_DMAQUEUE_ERROR : SCI_DMAQUEUE_DONE);
  pthread_cond_broadcast(&dq->done);
  pthread_mutex_unlock(&dq->lock);
  if (dq->callback != NULL) dq->callback(dq->callbackArg, dq, dq->status);
  return NULL;
}

void SCIPostDMAQueue(sci_dma_queue_t dq, sci_cb_dma_t callback, void *callbackArg, unsigned int flags, sci_error_t *error) {
  (void)flags;
  if (atomic_load(&dq->state) != SCI_DMAQUEUE_GATHER) {
    SET(error, SCI_ERR_ILLEGAL_OPERATION);
    return;
  }
  joinWorker(dq);
  dq->callback = callback;
  dq->callbackArg = callbackArg;
  atomic_store(&dq->state, SCI_DMAQUEUE_POSTED);
  if (pthread_create(&dq->worker, NULL, dmaWorker, dq) != 0) {
    atomic_store(&dq->state, SCI_DMAQUEUE_ERROR);
    SET(error, SCI_ERR_NOSPC);
    return;
  }
  dq->workerStarted = 1;
  SET(error, SCI_ERR_OK);
}

void SCIResetDMAQueue(sci_dma_queue_t dq, unsigned int flags, sci_error_t *error) {
  (void)flags;
  if (atomic_load(&dq->state) == SCI_DMAQUEUE_POSTED) {
    SET(error, SCI_ERR_BUSY);
    return;
  }
  joinWorker(dq);
  dq->count = 0;
  atomic_store(&dq->state, SCI_DMAQUEUE_IDLE);
  SET(error, SCI_ERR_OK);
}

sci_dma_queue_state_t SCIDMAQueueState(sci_dma_queue_t dq) { return (sci_dma_queue_state_t)atomic_load(&dq->state); }

sci_dma_queue_state_t SCIWaitForDMAQueue(sci_dma_queue_t dq, unsigned int timeout, unsigned int flags, sci_error_t *error) {
  (void)flags;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  if (timeout != SCI_INFINITE_TIMEOUT) {
    until.tv_sec += timeout / 1000;
    until.tv_nsec += (long)(timeout % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
  }
  pthread_mutex_lock(&dq->lock);
  while (atomic_load(&dq->state) == SCI_DMAQUEUE_POSTED) {
    int rc = timeout == SCI_INFINITE_TIMEOUT ? pthread_cond_wait(&dq->done, &dq->lock)
                                             : pthread_cond_timedwait(&dq->done, &dq->lock, &until);
    if (rc == ETIMEDOUT) break;
  }
  int state = atomic_load(&dq->state);
  pthread_mutex_unlock(&dq->lock);
  if (state == SCI_DMAQUEUE_POSTED) SET(error, SCI_ERR_TIMEOUT);
  else SET(error, state == SCI_DMAQUEUE_ERROR ? SCI_ERR_TRANSFER_FAILED : SCI_ERR_OK);
  return (sci_dma_queue_state_t)state;
}
