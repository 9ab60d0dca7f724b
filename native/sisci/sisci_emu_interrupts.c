/*
 * The emulation's interrupts: one futex word in a file per (node id, number); triggering sets it
 * and wakes, waiting takes it, so triggers coalesce as SCI interrupts do.
 */
#include "sisci_emu.h"

/* ---------------------------------------------------------------- interrupts */

static _Atomic int32_t *interruptWord(unsigned int nodeId, unsigned int number, int create, int exclusive,
                                      char *pathOut) {
  char path[128];
  objectPath(path, sizeof path, nodeId, 'i', number);
  int fd = shm_open(path, O_RDWR | (create ? O_CREAT : 0) | (exclusive ? O_EXCL : 0) | O_CLOEXEC, 0600);
  if (fd < 0) return NULL;
  if (create && ftruncate(fd, 4096) != 0) {
    close(fd);
    shm_unlink(path);
    return NULL;
  }
  void *p = mapFile(fd, 4096);
  close(fd);
  if (pathOut != NULL) snprintf(pathOut, 128, "%s", path);
  return (_Atomic int32_t *)p;
}

void SCICreateInterrupt(sci_desc_t sd, sci_local_interrupt_t *interrupt, unsigned int localAdapterNo,
                        unsigned int *interruptNo, void *callback, void *callbackArg, unsigned int flags,
                        sci_error_t *error) {
  (void)callback;
  (void)callbackArg;
  if (sd == NULL || localAdapterNo != 0 || interruptNo == NULL) {
    SET(error, SCI_ERR_ILLEGAL_PARAMETER);
    return;
  }
  pthread_mutex_lock(&emu.lock);
  int full = emu.interrupts >= emu.maxInterrupts;
  if (!full) emu.interrupts++;
  pthread_mutex_unlock(&emu.lock);
  if (full) {
    SET(error, SCI_ERR_NOSPC);
    return;
  }
  struct sci_local_interrupt *li = calloc(1, sizeof *li);
  unsigned int node = nodeIdOf(emu.nodeIndex);
  if (flags & SCI_FLAG_FIXED_INTNO) {
    li->flag = interruptWord(node, *interruptNo, 1, 1, li->path);
    li->number = *interruptNo;
  } else {
    for (unsigned int n = 1; n < 65536 && li->flag == NULL; n++) {
      li->flag = interruptWord(node, n, 1, 1, li->path);
      li->number = n;
    }
  }
  if (li->flag == NULL) {
    free(li);
    pthread_mutex_lock(&emu.lock);
    emu.interrupts--;
    pthread_mutex_unlock(&emu.lock);
    SET(error, (flags & SCI_FLAG_FIXED_INTNO) ? SCI_ERR_BUSY : SCI_ERR_NOSPC);
    return;
  }
  atomic_store(li->flag, 0);
  *interruptNo = li->number;
  *interrupt = li;
  SET(error, SCI_ERR_OK);
}

void SCIRemoveInterrupt(sci_local_interrupt_t interrupt, unsigned int flags, sci_error_t *error) {
  (void)flags;
  shm_unlink(interrupt->path);
  munmap((void *)interrupt->flag, 4096);
  free(interrupt);
  pthread_mutex_lock(&emu.lock);
  emu.interrupts--;
  pthread_mutex_unlock(&emu.lock);
  SET(error, SCI_ERR_OK);
}

void SCIWaitForInterrupt(sci_local_interrupt_t interrupt, unsigned int timeout, unsigned int flags, sci_error_t *error) {
  (void)flags;
  uint64_t deadline = timeout == SCI_INFINITE_TIMEOUT ? UINT64_MAX : nowMs() + timeout;
  for (;;) {
    /* Taking the flag consumes every trigger since the last wait: triggers coalesce. */
    if (atomic_exchange(interrupt->flag, 0) != 0) {
      SET(error, SCI_ERR_OK);
      return;
    }
    uint64_t now = nowMs();
    if (now >= deadline) {
      SET(error, SCI_ERR_TIMEOUT);
      return;
    }
    uint64_t left = deadline == UINT64_MAX ? 1000 : deadline - now;
    struct timespec ts = {(time_t)(left / 1000), (long)(left % 1000) * 1000000L};
    futex(interrupt->flag, FUTEX_WAIT, 0, &ts);
  }
}

void SCIConnectInterrupt(sci_desc_t sd, sci_remote_interrupt_t *interrupt, unsigned int nodeId,
                         unsigned int localAdapterNo, unsigned int interruptNo, unsigned int timeout, unsigned int flags,
                         sci_error_t *error) {
  (void)flags;
  if (sd == NULL || localAdapterNo != 0) {
    SET(error, SCI_ERR_ILLEGAL_PARAMETER);
    return;
  }
  uint64_t deadline = timeout == SCI_INFINITE_TIMEOUT ? UINT64_MAX : nowMs() + timeout;
  for (;;) {
    _Atomic int32_t *w = interruptWord(nodeId, interruptNo, 0, 0, NULL);
    if (w != NULL) {
      struct sci_remote_interrupt *ri = calloc(1, sizeof *ri);
      ri->flag = w;
      *interrupt = ri;
      SET(error, SCI_ERR_OK);
      return;
    }
    if (nowMs() >= deadline) {
      SET(error, SCI_ERR_NO_SUCH_INTNO);
      return;
    }
    sleepMs(1);
  }
}

void SCIDisconnectInterrupt(sci_remote_interrupt_t interrupt, unsigned int flags, sci_error_t *error) {
  (void)flags;
  munmap((void *)interrupt->flag, 4096);
  free(interrupt);
  SET(error, SCI_ERR_OK);
}

void SCITriggerInterrupt(sci_remote_interrupt_t interrupt, unsigned int flags, sci_error_t *error) {
  (void)flags;
  atomic_store(interrupt->flag, 1);
  futex(interrupt->flag, FUTEX_WAKE, 1, NULL);
  SET(error, SCI_ERR_OK);
}
