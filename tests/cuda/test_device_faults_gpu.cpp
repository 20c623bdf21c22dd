// Faults a campaign meets on the device side, GPU half (docs/robustness.md, "Faults"): with the
// device's memory held by someone else, run_cases shrinks its batches and gives the same bits,
// and fails clearly when nothing fits (or runs in buffers kept from earlier runs); with no GPU visible (CUDA_VISIBLE_DEVICES=), every call
// fails with a DeviceError that says so. Run it twice on a GPU host: as is, and with
// CUDA_VISIBLE_DEVICES= (the GPU tests skip, the no-GPU test runs).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tcnum/probes/device.hpp"

using namespace tcnum;

namespace {

std::vector<Case> random_cases(const Instruction& in, std::size_t count) {
  std::mt19937 rng(7);
  const std::uint32_t mask_ab = storage_mask(in.a_type), mask_c = storage_mask(in.c_type);
  std::vector<Case> cases(count);
  for (auto& c : cases) {
    c.a.resize(static_cast<std::size_t>(in.k));
    c.b.resize(static_cast<std::size_t>(in.k));
    for (auto& v : c.a) v = rng() & mask_ab & 0xbfffu;  // finite f16 (exponent below 31)
    for (auto& v : c.b) v = rng() & mask_ab & 0xbfffu;
    c.c = rng() & mask_c & 0xbfffffffu;
  }
  return cases;
}

// Holds the device's memory until only about `leave` bytes are free.
struct MemoryHog {
  std::vector<void*> blocks;
  explicit MemoryHog(std::size_t leave) {
    for (std::size_t step : {std::size_t{1} << 30, std::size_t{64} << 20, std::size_t{2} << 20}) {
      for (;;) {
        std::size_t free = 0, total = 0;
        if (cudaMemGetInfo(&free, &total) != cudaSuccess || free < leave + step) break;
        void* p = nullptr;
        if (cudaMalloc(&p, step) != cudaSuccess) {
          (void)cudaGetLastError();
          break;
        }
        blocks.push_back(p);
      }
    }
  }
  ~MemoryHog() {
    for (void* p : blocks) cudaFree(p);
  }
  static std::size_t free_bytes() {
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    return free;
  }
};

void out_of_memory_shrinks_batches(const char* name, std::size_t count) {
  if (!device::available()) GTEST_SKIP() << "no GPU";
  const Instruction in = find_instruction(name, 90);
  const auto cases = random_cases(in, count);
  const auto expected = device::run_cases(in, cases);  // enough memory (also runs the self-check)
  {
    MemoryHog hog(std::size_t{24} << 20);
    std::printf("%s: %zu cases with %zu MiB of device memory free\n", name, count, MemoryHog::free_bytes() >> 20);
    EXPECT_EQ(device::run_cases(in, cases), expected);
  }
  {
    MemoryHog hog(0);
    std::printf("%s: %zu cases with %zu KiB free\n", name, count, MemoryHog::free_bytes() >> 10);
    // mma.sync keeps its buffers from earlier runs (probes/runner.cpp, Scratch): it may still
    // fit, and must then give the same bits; otherwise the error says that even one tile failed.
    try {
      EXPECT_EQ(device::run_cases(in, cases), expected);
      std::printf("  ran in buffers kept from an earlier run\n");
    } catch (const device::DeviceOutOfMemory& e) {
      std::printf("  error: %s\n", e.what());
      EXPECT_NE(std::string(e.what()).find("halved down to one"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(device::run_cases(in, cases), expected);  // memory back: full batches again
}

}  // namespace

// Chunks want 256 MiB; with 24 MiB free they shrink.
TEST(DeviceFaultsGpu, OutOfMemoryShrinksMmaBatches) { out_of_memory_shrinks_batches("mma.m16n8k16.f32.f16.f16.f32", 800000); }
TEST(DeviceFaultsGpu, OutOfMemoryShrinksWgmmaBatches) { out_of_memory_shrinks_batches("wgmma.m64n256k16.f32.f16.f16", 200000); }

TEST(DeviceFaultsGpu, NoGpuIsAClearError) {
  std::string why;
  if (device::available(&why)) GTEST_SKIP() << "a GPU is visible: run with CUDA_VISIBLE_DEVICES= to test this";
  std::printf("available: no: %s\n", why.c_str());
  EXPECT_FALSE(why.empty());
  const Instruction in = find_instruction("mma.m16n8k16.f32.f16.f16.f32", 90);
  try {
    device::run_cases(in, random_cases(in, 16));
    ADD_FAILURE() << "no error without a GPU";
  } catch (const device::DeviceError& e) {
    std::printf("run_cases: %s\n", e.what());
  }
}
