// The inbox and completion rings of a UCX worker: see ucx_rings.h for the layout.
#include "ucx_rings.h"

#include <cstring>

namespace tsmpi {
namespace ucx {

namespace {

// Acquire and release: the relay thread may produce while the JavaScript thread consumes
// (ucx_wake.cc), so a record's bytes are written before the HEAD that publishes it. Plain
// moves on x86; they only keep the compiler from reordering.
uint32_t Load(const int32_t* control, int word) { return static_cast<uint32_t>(__atomic_load_n(&control[word], __ATOMIC_ACQUIRE)); }
void Store(int32_t* control, int word, uint32_t value) { __atomic_store_n(&control[word], static_cast<int32_t>(value), __ATOMIC_RELEASE); }

}  // namespace

void Inbox::Attach(uint8_t* base, uint32_t bytes, int32_t* control) {
  base_ = base;
  bytes_ = bytes;
  control_ = control;
  Store(control_, kCtlInboxHead, 0);
  Store(control_, kCtlInboxTail, 0);
  Store(control_, kCtlInboxBytes, bytes);
}

uint8_t* Inbox::Reserve(uint32_t need) {
  uint32_t head = Load(control_, kCtlInboxHead);
  uint32_t used = head - Load(control_, kCtlInboxTail);
  uint32_t free = bytes_ - used;
  uint32_t at = head & (bytes_ - 1);
  uint32_t contiguous = bytes_ - at;
  if (need <= contiguous) {
    if (need > free) return nullptr;
    return base_ + at;
  }
  // The record would cross the end: a wrap marker fills the rest, the record starts at 0.
  if (contiguous + need > free) return nullptr;
  uint32_t marker[4] = {kRecWrap, 0, 0, 0};
  memcpy(base_ + at, marker, contiguous < sizeof marker ? contiguous : sizeof marker);
  Store(control_, kCtlInboxHead, head + contiguous);
  return base_;
}

void Inbox::Put(uint32_t kindFlags, const void* header, uint32_t headerLen, const void* payload, uint32_t payloadLen,
                uint64_t messageLen, uint32_t descId) {
  uint32_t need = kRecordHeaderBytes + Pad8(headerLen) + Pad8(payloadLen);
  uint32_t lengthHigh = static_cast<uint32_t>(messageLen >> 32) << kRecLengthHighShift;
  uint32_t words[4] = {kindFlags | lengthHigh, headerLen, static_cast<uint32_t>(messageLen), descId};
  uint8_t* at = spill_.empty() ? Reserve(need) : nullptr;
  std::vector<uint8_t> spilled;
  if (at == nullptr) {
    spilled.assign(need, 0);
    at = spilled.data();
  }
  memcpy(at, words, sizeof words);
  if (headerLen > 0) memcpy(at + kRecordHeaderBytes, header, headerLen);
  if (payloadLen > 0) memcpy(at + kRecordHeaderBytes + Pad8(headerLen), payload, payloadLen);
  if (!spilled.empty()) {
    spill_.push_back(std::move(spilled));
    Store(control_, kCtlInboxSpilled, static_cast<uint32_t>(spill_.size()));
    return;
  }
  Store(control_, kCtlInboxHead, Load(control_, kCtlInboxHead) + need);
}

uint32_t Inbox::Drain() {
  uint32_t moved = 0;
  while (!spill_.empty()) {
    std::vector<uint8_t>& record = spill_.front();
    uint32_t need = static_cast<uint32_t>(record.size());
    uint8_t* at = Reserve(need);
    if (at == nullptr) break;
    memcpy(at, record.data(), need);
    Store(control_, kCtlInboxHead, Load(control_, kCtlInboxHead) + need);
    spill_.pop_front();
    moved++;
  }
  if (moved > 0) Store(control_, kCtlInboxSpilled, static_cast<uint32_t>(spill_.size()));
  return moved;
}

void CompletionQueue::Attach(int32_t* slots, uint32_t count, int32_t* control) {
  slots_ = slots;
  count_ = count;
  control_ = control;
  Store(control_, kCtlCqHead, 0);
  Store(control_, kCtlCqTail, 0);
  Store(control_, kCtlCqSlots, count);
}

bool CompletionQueue::TryPut(const std::array<int32_t, kCqEntryWords>& e) {
  uint32_t head = Load(control_, kCtlCqHead);
  if (head - Load(control_, kCtlCqTail) >= count_) return false;
  memcpy(slots_ + (head & (count_ - 1)) * kCqEntryWords, e.data(), sizeof(int32_t) * kCqEntryWords);
  Store(control_, kCtlCqHead, head + 1);
  return true;
}

void CompletionQueue::Put(int32_t token, int32_t status, int32_t kind, int32_t value) {
  std::array<int32_t, kCqEntryWords> e = {token, status, kind, value};
  if (spill_.empty() && TryPut(e)) return;
  spill_.push_back(e);
  Store(control_, kCtlCqSpilled, static_cast<uint32_t>(spill_.size()));
}

uint32_t CompletionQueue::Drain() {
  uint32_t moved = 0;
  while (!spill_.empty() && TryPut(spill_.front())) {
    spill_.pop_front();
    moved++;
  }
  if (moved > 0) Store(control_, kCtlCqSpilled, static_cast<uint32_t>(spill_.size()));
  return moved;
}

}  // namespace ucx
}  // namespace tsmpi
