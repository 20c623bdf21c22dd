// The GPU as a black box (tcnum/core/black_box.hpp): cases through run_cases; batched GEMMs as
// whole tiles, one run_tiles launch per k-step with the previous D as C. A header of its own:
// device.hpp is also read by the CUDA (C++17) kernel files, this one is C++20 host code.
#pragma once
#include "tcnum/core/black_box.hpp"
#include "tcnum/probes/device.hpp"

namespace tcnum::device {

BlackBox device_box(const RunOptions& opt = {});

}  // namespace tcnum::device
