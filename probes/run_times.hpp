// Internal to the probes: where device runs spend their wall time (tcnum::device::run_times()
// adds it up over every thread). A RunTimer laps the phases of one run on the calling thread.
#pragma once

namespace tcnum::device::detail {

enum class RunPhase { pack, copy_in, kernel, copy_out };
void add_run_time(RunPhase phase, double seconds);

class RunTimer {
 public:
  RunTimer();
  void lap(RunPhase phase);  // the time since the last lap (or construction) goes to `phase`

 private:
  long long last_ns_;
};

}  // namespace tcnum::device::detail
