#include "waiter_pool.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <climits>

namespace tsmpi {

WaiterPool::~WaiterPool() {
  // Stop() joined every thread; a thread still running here would use a destroyed mutex.
  std::lock_guard<std::mutex> lock(mutex_);
  for (Worker& worker : workers_) {
    if (worker.thread.joinable()) std::terminate();
  }
}

bool WaiterPool::Submit(Job* job) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return false;
  ReapLocked();
  queue_.push_back(job);
  // Every queued job needs a thread of its own: one that is idle, or one on its way.
  if (queue_.size() > idle_ + starting_) {
    try {
      SpawnLocked();
    } catch (...) {
      queue_.pop_back();
      throw;
    }
  } else {
    jobReady_.notify_one();
  }
  return true;
}

void WaiterPool::SpawnLocked() {
  // Waiter threads block every signal, so that signals meant for the process (SIGINT, SIGCHLD)
  // reach the threads that handle them; a new thread inherits the mask of its creator.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  workers_.emplace_back();
  Worker* worker = &workers_.back();
  try {
    worker->thread = std::thread(&WaiterPool::Run, this, worker);
  } catch (...) {
    workers_.pop_back();
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  ++starting_;
}

void WaiterPool::ReapLocked() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->finished) {
      it->thread.join();  // it has left Run() or is about to; it needs no lock to finish
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

void WaiterPool::Run(Worker* self) {
  std::unique_lock<std::mutex> lock(mutex_);
  --starting_;
  for (;;) {
    ++idle_;
    jobReady_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    --idle_;
    if (stopping_) break;
    Job* job = queue_.front();
    queue_.pop_front();
    active_.push_back(job);
    lock.unlock();

    job->outcome = FutexWaitUntil(job->cell, job->expected, job->deadlineNs);

    lock.lock();
    active_.erase(std::find(active_.begin(), active_.end(), job));
    if (stopping_) {
      abandoned_.push_back(job);
      activeEnded_.notify_all();
      break;
    }
    lock.unlock();
    done_(job, context_);
    lock.lock();
    if (queue_.empty() && idle_ >= kMaxIdleThreads) break;  // enough threads idle already
  }
  self->finished = true;
}

std::vector<WaiterPool::Job*> WaiterPool::Stop() {
  std::unique_lock<std::mutex> lock(mutex_);
  stopping_ = true;
  jobReady_.notify_all();
  // Waking a thread's cell ends its wait. The wake repeats because it may land between the
  // moment a thread took its job and the moment it entered the kernel.
  while (!active_.empty()) {
    for (Job* job : active_) FutexWake(job->cell, INT_MAX);
    activeEnded_.wait_for(lock, std::chrono::milliseconds(1));
  }
  std::list<Worker> workers = std::move(workers_);
  workers_.clear();
  std::vector<Job*> left(queue_.begin(), queue_.end());
  queue_.clear();
  left.insert(left.end(), abandoned_.begin(), abandoned_.end());
  abandoned_.clear();
  lock.unlock();
  for (Worker& worker : workers) worker.thread.join();
  return left;
}

size_t WaiterPool::ThreadCount() {
  std::lock_guard<std::mutex> lock(mutex_);
  ReapLocked();
  return workers_.size();
}

}  // namespace tsmpi
