// The library's one thread pool: parallel loops over independent tasks (gemm's rows, the chain
// study's trials, fuzz batches). Results never depend on the number of threads.
#pragma once
#include <cstddef>
#include <functional>

namespace tcnum {

// The worker count for a request: > 0 as given; 0 = TCNUM_THREADS from the environment when it
// is a positive number, else every hardware thread. Never below 1.
int resolve_threads(int requested);

// Runs task(i) once for every i in [0, count), on up to `threads` threads (the calling thread is
// one of them), each taking the next index from a shared counter. The other threads are the
// process's pool: workers started on first need (at most 256) and kept parked between loops, so
// a loop costs a wake-up, not a thread start. A loop takes idle workers only (another thread's
// loop may hold some), so it may run on fewer threads than asked, never waiting for a busy one.
// A worker that cannot be started (std::system_error: a memory or process limit) leaves its
// share to the threads that did start, so a limit makes the loop slower, never wrong, and never
// aborts. The first exception a task throws stops the others from taking new indices and is
// rethrown here, once every worker has left the loop. A parallel_for called from inside a task
// (on a worker or on the calling thread) runs its loop inline on that thread. After a fork the
// child starts a pool of its own (the parent's threads do not exist there).
// `on_worker_exit` runs on every pool worker the loop enlisted, after its last task of the loop
// (also when it took none, and after a failure), e.g. to free a library's thread-local caches
// (workers outlive the loop); it does not run on the calling thread nor in an inline loop.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& task,
                  const std::function<void()>& on_worker_exit = {});

}  // namespace tcnum
