// The GPU backend of `numprobe fuzz`: each run split evenly across the chosen devices, one
// host thread per device.
#include <future>
#include <sstream>
#include <stdexcept>

#include "fuzz_backends.hpp"

#ifdef TCNUM_HAVE_CUDA
#include "tcnum/probes/device.hpp"
#endif

namespace numprobe {

#ifdef TCNUM_HAVE_CUDA
namespace {

class DeviceBackend : public tcnum::fuzz::Backend {
 public:
  DeviceBackend(std::vector<int> devices, bool both) : devices_(std::move(devices)), both_(both) {
    if (devices_.empty()) throw std::invalid_argument("--devices: no device given");
    for (int d : devices_) {
      const auto i = tcnum::device::info(d);
      names_ += (names_.empty() ? "" : ", ") + std::to_string(d) + ": " + i.name + " (sm_" + std::to_string(i.sm) + ")";
    }
  }
  std::string description() const override { return "GPU " + names_; }
  void run(const tcnum::Instruction& in, std::size_t count, const std::uint32_t* a, const std::uint32_t* b,
           const std::uint32_t* c, std::uint32_t* d) override {
    const std::size_t parts = devices_.size(), K = static_cast<std::size_t>(in.k);
    std::vector<std::future<void>> jobs;
    for (std::size_t p = 0; p < parts; ++p) {
      const std::size_t first = count * p / parts, n = count * (p + 1) / parts - first;
      if (n == 0) continue;
      jobs.push_back(std::async(std::launch::async, [&, first, n, p] {
        tcnum::device::RunOptions opt;
        opt.device = devices_[p];
        tcnum::device::run_cases(in, n, a + first * K, b + first * K, c + first, d + first, opt);
        if (both_ && in.family == tcnum::Family::wgmma) {
          std::vector<std::uint32_t> again(n);
          opt.a_source = tcnum::device::ASource::registers;
          tcnum::device::run_cases(in, n, a + first * K, b + first * K, c + first, again.data(), opt);
          for (std::size_t i = 0; i < n; ++i)
            if (again[i] != d[first + i]) {
              std::ostringstream os;
              os << in.name << ": A from shared memory and from registers disagree" << std::hex << ": " << d[first + i]
                 << " vs " << again[i];
              throw std::runtime_error(os.str());
            }
        }
      }));
    }
    for (auto& j : jobs) j.get();
  }

 private:
  std::vector<int> devices_;
  bool both_;
  std::string names_;
};

}  // namespace

std::unique_ptr<tcnum::fuzz::Backend> make_device_backend(const std::vector<int>& devices, bool both_a_sources) {
  std::string why;
  if (!tcnum::device::available(&why)) throw std::runtime_error("no usable GPU: " + why);
  return std::make_unique<DeviceBackend>(devices, both_a_sources);
}

DeviceFacts device_facts(int device) {
  const auto i = tcnum::device::info(device);
  return {i.sm, {{"device", i.name}, {"uuid", i.uuid}, {"driver", i.driver}, {"cuda_runtime", i.runtime}}};
}
#else
std::unique_ptr<tcnum::fuzz::Backend> make_device_backend(const std::vector<int>&, bool) {
  throw std::runtime_error("this numprobe was built without CUDA: --backend device needs a build with the CUDA "
                           "toolkit (see docs/probes.md); --backend emu --device-model FILE plays a device");
}
DeviceFacts device_facts(int) { throw std::runtime_error("this numprobe was built without CUDA"); }
#endif

}  // namespace numprobe
