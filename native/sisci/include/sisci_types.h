/* SISCI handle and status types (Dolphin's sisci_types.h names; handles are opaque pointers). */
#ifndef TSMPI_SISCI_TYPES_H
#define TSMPI_SISCI_TYPES_H

typedef struct sci_desc *sci_desc_t;
typedef struct sci_local_segment *sci_local_segment_t;
typedef struct sci_remote_segment *sci_remote_segment_t;
typedef struct sci_map *sci_map_t;
typedef struct sci_sequence *sci_sequence_t;
typedef struct sci_dma_queue *sci_dma_queue_t;
typedef struct sci_local_interrupt *sci_local_interrupt_t;
typedef struct sci_remote_interrupt *sci_remote_interrupt_t;

typedef enum { SCI_SEQ_OK, SCI_SEQ_RETRIABLE, SCI_SEQ_NOT_RETRIABLE, SCI_SEQ_PENDING } sci_sequence_status_t;

typedef enum {
  SCI_DMAQUEUE_IDLE, SCI_DMAQUEUE_GATHER, SCI_DMAQUEUE_POSTED, SCI_DMAQUEUE_DONE, SCI_DMAQUEUE_ABORTED,
  SCI_DMAQUEUE_ERROR
} sci_dma_queue_state_t;

typedef enum { SCI_CALLBACK_CANCEL = 1, SCI_CALLBACK_CONTINUE } sci_callback_action_t;

#endif
