// The one thread pool (tcnum/core/parallel.hpp).
#include "tcnum/core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace tcnum {
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
  if (workers <= 1) {
    for (std::size_t i = 0; i < count; ++i) task(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < count;) task(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = count;
    }
  };
  std::vector<std::thread> pool;
  const std::size_t extra = workers - 1;
  try {
    pool.reserve(extra);
    for (std::size_t w = 0; w < extra; ++w)
      pool.emplace_back([&] {
        work();
        if (on_worker_exit) on_worker_exit();
      });
  } catch (const std::system_error&) {
    // No more threads to be had (or no memory for their stacks): the ones running, and this
    // thread, take every index.
  } catch (const std::bad_alloc&) {
  }
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace tcnum
