// Persistent native threads that sleep in futex waits on behalf of the event loop.
//
// A futex wait blocks its thread, so every pending wait holds one thread; the libuv threadpool
// (4 threads, needed for fs) must not be spent on that. The pool reuses idle threads, starts a
// new one only when none is idle, and lets a thread end once kMaxIdleThreads others are idle,
// so a burst of waits does not leave a crowd of threads behind and a steady pattern of waits
// costs no thread creation.
//
// Ownership: the submitter owns each Job. The pool borrows it from Submit() until it passes it
// back through the Done callback (called on the waiter thread), or until Stop() returns it.
#ifndef TSMPI_WAITER_POOL_H_
#define TSMPI_WAITER_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include "futex.h"

namespace tsmpi {

class WaiterPool {
 public:
  struct Job {
    int32_t* cell;       // must stay mapped until the job comes back
    int32_t expected;
    int64_t deadlineNs;  // absolute CLOCK_MONOTONIC, -1 for none
    FutexOutcome outcome;
  };

  // Receives a finished job on the waiter thread that ran it.
  using Done = void (*)(Job* job, void* context);

  static constexpr size_t kMaxIdleThreads = 4;

  WaiterPool(Done done, void* context) : done_(done), context_(context) {}
  ~WaiterPool();  // Stop() must have returned

  WaiterPool(const WaiterPool&) = delete;
  WaiterPool& operator=(const WaiterPool&) = delete;

  // Queues a wait. Returns false, without queueing, once Stop() has begun. Throws
  // std::system_error (job not queued) if a needed thread cannot be created.
  bool Submit(Job* job);

  // Ends all waits and joins all threads. A thread asleep in the kernel is released by waking its
  // cell, which may also wake another process waiting on that cell: a spurious 'ok' it must
  // tolerate anyway. Returns the jobs that did not complete, for the caller to free.
  std::vector<Job*> Stop();

  // Threads alive now, idle or waiting (the futexWaiterThreads diagnostic).
  size_t ThreadCount();

 private:
  struct Worker {
    std::thread thread;
    bool finished = false;
  };

  void Run(Worker* self);
  void SpawnLocked();
  void ReapLocked();

  const Done done_;
  void* const context_;

  std::mutex mutex_;                     // guards everything below
  std::condition_variable jobReady_;     // queue_ gained a job, or stopping_
  std::condition_variable activeEnded_;  // a job left active_ during Stop()
  std::deque<Job*> queue_;               // submitted, not yet taken by a thread
  std::vector<Job*> active_;             // taken by a thread, possibly asleep in the kernel
  std::vector<Job*> abandoned_;          // ended by Stop(), not passed to Done
  std::list<Worker> workers_;            // a list: each thread keeps a pointer to its entry
  size_t idle_ = 0;                      // threads waiting for a job
  size_t starting_ = 0;                  // threads created that have not yet looked for a job
  bool stopping_ = false;
};

}  // namespace tsmpi

#endif  // TSMPI_WAITER_POOL_H_
