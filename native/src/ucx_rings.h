// How a UCX worker reports to JavaScript without a JavaScript call per event: two rings in
// memory JavaScript reads directly (ArrayBuffers the worker made and holds), written only by
// callbacks that UCX runs inside ucp_worker_progress on the JavaScript thread, so a ring needs no
// atomics and delivering a message allocates nothing on the JavaScript side.
//
// The layout is a contract with src/native/addon.ts (UCX_CTL_*, UCX_REC_*, UCX_CQ_*); the test
// test/unit/ucx/layout.test.ts compares it with the numbers ucxLayout() reports from here.
//
// control (Int32Array, kControlWords words):
//   0 INBOX_HEAD   bytes ever written to the inbox (uint32, wraps); native writes
//   1 INBOX_TAIL   bytes ever consumed; JavaScript writes after handling records
//   2 CQ_HEAD      completions ever written (uint32, wraps); native writes
//   3 CQ_TAIL      completions consumed; JavaScript writes
//   4 INBOX_SPILLED records waiting natively because the inbox was full (moved in at progress)
//   5 CQ_SPILLED    completions waiting natively because the queue was full
//   6 EP_FAILURES   endpoints of this worker that failed so far
//   7 DROPPED       incoming messages dropped (a header over kMaxHeader, or no memory)
//   8 INBOX_BYTES   the inbox's size (a power of two)
//   9 CQ_SLOTS      the completion queue's slots (a power of two)
//
// inbox: records at 8-byte aligned offsets (offset = counter & (size - 1)), never wrapping:
//   word 0  kind (low 8 bits: REC_MSG, REC_DESC or REC_WRAP) | flags (DESC_* for REC_DESC,
//           bits 8-15) | bits 16-31: bits 32-47 of the length in word 2 (a rendezvous message
//           may pass 4 GiB; a record never does)
//   word 1  header bytes
//   word 2  payload bytes, bits 0-31 (REC_DESC: the message's length, held by the descriptor)
//   word 3  descriptor id (REC_DESC), for ucxAmRecv / ucxAmDiscard
//   then the header, padded to 8 bytes, then (REC_MSG) the payload, padded to 8 bytes.
//   REC_WRAP: nothing more; the next record is at offset 0.
//
// completions (Int32Array, kCqEntryWords words per slot): token, status (0 or a negative
// ucs_status_t), kind (CQ_*), value (CQ_RECV: bytes received; CQ_EP_FAILED: 0).
// CQ_EP_FAILED carries the endpoint's user id in place of a token.
#ifndef TSMPI_UCX_RINGS_H_
#define TSMPI_UCX_RINGS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace tsmpi {
namespace ucx {

constexpr uint32_t kMaxHeader = 256;  // bytes of opaque header per message

constexpr int kCtlInboxHead = 0;
constexpr int kCtlInboxTail = 1;
constexpr int kCtlCqHead = 2;
constexpr int kCtlCqTail = 3;
constexpr int kCtlInboxSpilled = 4;
constexpr int kCtlCqSpilled = 5;
constexpr int kCtlEpFailures = 6;
constexpr int kCtlDropped = 7;
constexpr int kCtlInboxBytes = 8;
constexpr int kCtlCqSlots = 9;
constexpr int kControlWords = 16;

constexpr uint32_t kRecMsg = 1;
constexpr uint32_t kRecDesc = 2;
constexpr uint32_t kRecWrap = 3;
constexpr uint32_t kRecordHeaderBytes = 16;
constexpr uint32_t kRecLengthHighShift = 16;
// Longest message a record can announce: 48 bits of length.
constexpr uint64_t kMaxMessageBytes = (uint64_t{1} << 48) - 1;

constexpr uint32_t kDescRndv = 1u << 8;  // rendezvous: ucxAmRecv moves it zero-copy from the sender
constexpr uint32_t kDescData = 1u << 9;  // eager data UCX keeps for us
constexpr uint32_t kDescCopy = 1u << 10; // eager data copied into native memory (UCX could not keep it)

constexpr int kCqEntryWords = 4;
constexpr int32_t kCqSend = 1;
constexpr int32_t kCqRecv = 2;
constexpr int32_t kCqPut = 3;
constexpr int32_t kCqGet = 4;
constexpr int32_t kCqAtomic = 5;
constexpr int32_t kCqFlush = 6;
constexpr int32_t kCqClose = 7;
constexpr int32_t kCqEpFailed = 8;

inline uint32_t Pad8(uint32_t n) { return (n + 7u) & ~7u; }

class Inbox {
 public:
  void Attach(uint8_t* base, uint32_t bytes, int32_t* control);

  // Appends a record: header + inline payload (kRecMsg), or header + descriptor (kRecDesc, no
  // payload bytes). Goes to the native spill when the ring has no room or older records wait
  // there (order is kept).
  void Put(uint32_t kindFlags, const void* header, uint32_t headerLen, const void* payload, uint32_t payloadLen,
           uint64_t messageLen, uint32_t descId);

  // Moves spilled records into the ring while they fit; returns how many moved.
  uint32_t Drain();

  // Whether a record of this many header and payload bytes can ever be inline (fits half the ring).
  bool FitsInline(uint32_t headerLen, uint32_t payloadLen) const {
    return kRecordHeaderBytes + Pad8(headerLen) + Pad8(payloadLen) <= bytes_ / 2;
  }

  size_t Spilled() const { return spill_.size(); }

 private:
  // Room for `need` contiguous bytes at the head (writing a wrap marker if needed), or null.
  uint8_t* Reserve(uint32_t need);
  void Publish();

  uint8_t* base_ = nullptr;
  uint32_t bytes_ = 0;
  int32_t* control_ = nullptr;
  std::deque<std::vector<uint8_t>> spill_;
};

class CompletionQueue {
 public:
  void Attach(int32_t* slots, uint32_t count, int32_t* control);
  void Put(int32_t token, int32_t status, int32_t kind, int32_t value);
  uint32_t Drain();
  size_t Spilled() const { return spill_.size(); }

 private:
  bool TryPut(const std::array<int32_t, kCqEntryWords>& e);

  int32_t* slots_ = nullptr;
  uint32_t count_ = 0;
  int32_t* control_ = nullptr;
  std::deque<std::array<int32_t, kCqEntryWords>> spill_;
};

}  // namespace ucx
}  // namespace tsmpi

#endif  // TSMPI_UCX_RINGS_H_
