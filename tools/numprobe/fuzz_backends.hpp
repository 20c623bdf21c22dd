// The device side of `numprobe fuzz`: the GPU (built with CUDA) or a model playing it.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tcnum/fuzz/campaign.hpp"

namespace numprobe {

struct DeviceFacts {
  int sm = 0;
  std::vector<std::pair<std::string, std::string>> info;  // device, uuid, driver, runtime (for summary.json)
};

// The GPUs `devices` (CUDA ordinals); each run is split across them. With `both_a_sources`, wgmma
// runs A from shared memory and from registers and fails if they ever differ. Throws
// std::runtime_error when numprobe was built without CUDA or a device is unusable.
std::unique_ptr<tcnum::fuzz::Backend> make_device_backend(const std::vector<int>& devices, bool both_a_sources);
DeviceFacts device_facts(int device);

}  // namespace numprobe
