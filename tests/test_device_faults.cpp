// Faults a campaign meets on the device side, host half (docs/robustness.md, "Faults"): out of
// device memory shrinks the batch by halves (probes/shrink_to_fit.hpp) and fails clearly only
// when not even one tile fits. The GPU half, tests/cuda/test_device_faults_gpu.cpp, runs on a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../probes/shrink_to_fit.hpp"

using tcnum::device::DeviceError;
using tcnum::device::DeviceOutOfMemory;
using tcnum::device::detail::shrink_to_fit;

namespace {

// A device with room for `free_tiles` tiles; records every batch size it was asked for.
struct FakeDevice {
  int free_tiles;
  std::vector<int> asked;
  void allocate(int n) {
    asked.push_back(n);
    if (n > free_tiles) throw DeviceOutOfMemory("CUDA error while allocating A: cudaErrorMemoryAllocation");
  }
};

}  // namespace

TEST(DeviceOutOfMemory, TheBatchIsHalvedUntilItFits) {
  FakeDevice dev{100, {}};
  EXPECT_EQ(shrink_to_fit(1000, [&](int n) { dev.allocate(n); }), 62);
  EXPECT_EQ(dev.asked, (std::vector<int>{1000, 500, 250, 125, 62}));
}

TEST(DeviceOutOfMemory, ABatchThatFitsIsKept) {
  FakeDevice dev{100, {}};
  EXPECT_EQ(shrink_to_fit(100, [&](int n) { dev.allocate(n); }), 100);
  EXPECT_EQ(dev.asked.size(), 1u);
}

TEST(DeviceOutOfMemory, NotEvenOneTileIsAClearError) {
  FakeDevice dev{0, {}};
  try {
    shrink_to_fit(8, [&](int n) { dev.allocate(n); });
    FAIL() << "no error";
  } catch (const DeviceOutOfMemory& e) {
    const std::string why = e.what();
    EXPECT_NE(why.find("cudaErrorMemoryAllocation"), std::string::npos) << why;
    EXPECT_NE(why.find("a batch of 8 tiles was halved down to one"), std::string::npos) << why;
  }
  EXPECT_EQ(dev.asked, (std::vector<int>{8, 4, 2, 1}));
}

TEST(DeviceOutOfMemory, OtherDeviceErrorsAreNotRetried) {
  int calls = 0;
  EXPECT_THROW(shrink_to_fit(8,
                             [&](int) {
                               ++calls;
                               throw DeviceError("CUDA error while launching the kernel: cudaErrorLaunchFailure");
                             }),
               DeviceError);
  EXPECT_EQ(calls, 1);
}
