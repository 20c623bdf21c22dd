// A device copy of a host vector for the Blackwell runners, and their CUDA error check.
#pragma once
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tcnum::blackwell {

inline void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw std::runtime_error("CUDA error while " + what + ": " + cudaGetErrorString(e));
}

struct DeviceBuffer {
  std::uint32_t* p = nullptr;
  explicit DeviceBuffer(const std::vector<std::uint32_t>& host) {
    check(cudaMalloc(reinterpret_cast<void**>(&p), std::max<std::size_t>(host.size(), 1) * 4), "allocating");
    if (!host.empty()) check(cudaMemcpy(p, host.data(), host.size() * 4, cudaMemcpyHostToDevice), "copying to the GPU");
  }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

}  // namespace tcnum::blackwell
