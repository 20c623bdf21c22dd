// The one thread pool (tcnum/core/parallel.hpp): workers started on first need and kept, parked
// on their own condition variable between loops. A loop enlists idle workers only, so a caller
// never waits for a busy one: concurrent loops from several threads cannot deadlock.
#include "tcnum/core/parallel.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

namespace tcnum {
namespace {

// True on pool workers and on a caller while it runs its loop's tasks: a parallel_for there runs
// inline (the pool is already as busy as it was asked to be; waiting for it could deadlock).
thread_local bool t_inside_loop = false;

// One parallel_for call: its indices, its first failure and the workers still inside it.
class Loop {
 public:
  Loop(std::size_t count, const std::function<void(std::size_t)>& task, const std::function<void()>& on_worker_exit)
      : count_(count), task_(task), on_worker_exit_(on_worker_exit) {}

  // Takes indices until none remain or a task failed.
  void run_tasks() {
    try {
      for (std::size_t i; (i = next_.fetch_add(1)) < count_;) task_(i);
    } catch (...) {
      fail(std::current_exception());
    }
  }
  // A worker's end of the loop: its hook (a failure there counts as the loop's), then nothing.
  void worker_exit() {
    if (!on_worker_exit_) return;
    try {
      on_worker_exit_();
    } catch (...) {
      fail(std::current_exception());
    }
  }
  void enlisted() {
    std::lock_guard<std::mutex> lock(m_);
    ++inside_;
  }
  // The last access of a worker to this loop (the caller may destroy it right after).
  void worker_left() {
    std::lock_guard<std::mutex> lock(m_);
    if (--inside_ == 0) left_.notify_all();
  }
  // Waits for every enlisted worker, then rethrows the first failure.
  void finish() {
    std::unique_lock<std::mutex> lock(m_);
    left_.wait(lock, [&] { return inside_ == 0; });
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  void fail(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(m_);
    if (!failure_) failure_ = std::move(e);
    next_ = count_;
  }

  const std::size_t count_;
  const std::function<void(std::size_t)>& task_;
  const std::function<void()>& on_worker_exit_;
  std::atomic<std::size_t> next_{0};
  std::mutex m_;
  std::condition_variable left_;
  std::exception_ptr failure_;  // guarded by m_
  int inside_ = 0;              // enlisted workers not yet left; guarded by m_
};

class Pool {
 public:
  // Hands `loop` to up to `wanted` idle workers, starting new ones where none is idle; returns
  // how many took it (fewer where a thread cannot start or kMaxWorkers are busy).
  int enlist(Loop& loop, int wanted) {
    std::lock_guard<std::mutex> lock(m_);
    int got = 0;
    for (; got < wanted; ++got) {
      Worker* w = idle_.empty() ? start_worker() : idle_.back();
      if (!w) break;
      if (!idle_.empty()) idle_.pop_back();  // (a started worker was never idle: idle_ is empty then)
      loop.enlisted();
      {
        std::lock_guard<std::mutex> wl(w->m);
        w->loop = &loop;
      }
      w->wake.notify_one();
    }
    return got;
  }
  Pool* orphaned_by_fork = nullptr;  // keeps a parent's pool reachable in a forked child

 private:
  struct Worker {
    std::mutex m;
    std::condition_variable wake;
    Loop* loop = nullptr;  // guarded by m
  };
  // A worker that cannot start (std::system_error: a memory or process limit) is no worker.
  static constexpr std::size_t kMaxWorkers = 256;
  Worker* start_worker() {
    if (workers_.size() >= kMaxWorkers) return nullptr;
    try {
      workers_.reserve(workers_.size() + 1);
      auto w = std::make_unique<Worker>();
      std::thread([this, p = w.get()] { serve(*p); }).detach();
      workers_.push_back(std::move(w));
      return workers_.back().get();
    } catch (const std::system_error&) {
    } catch (const std::bad_alloc&) {
    }
    return nullptr;
  }
  [[noreturn]] void serve(Worker& w) {
    t_inside_loop = true;
    for (;;) {
      Loop* loop = nullptr;
      {
        std::unique_lock<std::mutex> wl(w.m);
        w.wake.wait(wl, [&] { return w.loop != nullptr; });
        loop = w.loop;
      }
      loop->run_tasks();
      loop->worker_exit();
      {
        std::lock_guard<std::mutex> wl(w.m);
        w.loop = nullptr;
      }
      {
        // Idle again before the caller can return: its next loop finds this worker.
        std::lock_guard<std::mutex> lock(m_);
        idle_.push_back(&w);
      }
      loop->worker_left();
    }
  }

  std::mutex m_;
  std::vector<std::unique_ptr<Worker>> workers_;  // never shrinks: workers live as long as the process
  std::vector<Worker*> idle_;
};

// The process's pool, created on first use and never destroyed (parked workers outlive static
// destructors harmlessly). A forked child has none of its parent's threads: it starts afresh.
std::atomic<Pool*> g_pool{nullptr};

void forget_pool_in_child() {
  Pool* parent = g_pool.exchange(nullptr);
  if (!parent) return;
  Pool* fresh = new Pool;
  fresh->orphaned_by_fork = parent;
  g_pool.store(fresh);
}

Pool& pool() {
  Pool* p = g_pool.load(std::memory_order_acquire);
  if (p) return *p;
  auto fresh = std::make_unique<Pool>();
  if (!g_pool.compare_exchange_strong(p, fresh.get())) return *p;
  static std::atomic<bool> registered{false};
  if (!registered.exchange(true)) pthread_atfork(nullptr, nullptr, &forget_pool_in_child);
  return *fresh.release();
}

// Sets t_inside_loop for a scope (restored on unwinding too).
class InsideLoop {
 public:
  InsideLoop() : was_(t_inside_loop) { t_inside_loop = true; }
  ~InsideLoop() { t_inside_loop = was_; }
  InsideLoop(const InsideLoop&) = delete;
  InsideLoop& operator=(const InsideLoop&) = delete;

 private:
  bool was_;
};

}  // namespace

int resolve_threads(int requested) {
  if (requested > 0) return requested;
  if (const char* env = std::getenv("TCNUM_THREADS")) {
    const int v = std::atoi(env);
    if (v > 0) return v;
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& task,
                  const std::function<void()>& on_worker_exit) {
  const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), count);
  if (workers <= 1 || t_inside_loop) {
    for (std::size_t i = 0; i < count; ++i) task(i);
    return;
  }
  Loop loop(count, task, on_worker_exit);
  try {
    pool().enlist(loop, static_cast<int>(workers - 1));
  } catch (const std::bad_alloc&) {  // no memory for the pool: this thread takes every index
  }
  {
    const InsideLoop inside;
    loop.run_tasks();
  }
  loop.finish();
}

}  // namespace tcnum
