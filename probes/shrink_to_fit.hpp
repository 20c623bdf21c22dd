// Out of device memory is a fault a campaign meets when another process holds the GPU's memory.
// The runner does not fail then: the batch shrinks, by halves, until its buffers fit. Header-only
// and free of CUDA, so that a host test (tests/test_device_faults.cpp) checks the policy.
#pragma once
#include <string>

#include "tcnum/probes/device.hpp"

namespace tcnum::device::detail {

// Calls try_batch(n) for n = wanted, wanted / 2, ..., 1 until it returns without
// DeviceOutOfMemory, and returns that n. When even n = 1 fails, rethrows the error, saying so.
template <class TryBatch>
int shrink_to_fit(int wanted, TryBatch&& try_batch) {
  for (int n = wanted < 1 ? 1 : wanted;; n /= 2) {
    try {
      try_batch(n);
      return n;
    } catch (const DeviceOutOfMemory& e) {
      if (n == 1)
        throw DeviceOutOfMemory(std::string(e.what()) + " (a batch of " + std::to_string(wanted) +
                                " tiles was halved down to one; free device memory or use another GPU)");
    }
  }
}

}  // namespace tcnum::device::detail
