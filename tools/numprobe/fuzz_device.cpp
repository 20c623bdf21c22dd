// The GPU backend of `numprobe fuzz`: each run split evenly across the chosen devices, one
// host thread per device.
#include <future>
#include <sstream>
#include <stdexcept>

#include "fuzz_backends.hpp"

#ifdef TCNUM_HAVE_CUDA
#include "options.hpp"
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
    const std::size_t K = static_cast<std::size_t>(in.k);
    split(in, count, K, K, 1, a, b, c, d, [&](const auto&... args) { tcnum::device::run_cases(in, args...); });
  }
  void run_tiles(const tcnum::Instruction& in, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                 const std::uint32_t* c, std::uint32_t* d) override {
    split(in, tiles, std::size_t(in.m) * in.k, std::size_t(in.n) * in.k, std::size_t(in.m) * in.n, a, b, c, d,
          [&](const auto&... args) { tcnum::device::run_tiles(in, args...); });
  }
  std::vector<std::pair<std::string, double>> timing() const override {
    const auto t = tcnum::device::run_times();
    return {{"device_pack_s", t.pack_s}, {"device_copy_in_s", t.copy_in_s}, {"device_kernel_s", t.kernel_s},
            {"device_copy_out_s", t.copy_out_s}};
  }

 private:
  // `units` (cases or tiles) split evenly across the devices, one host thread each; a unit has
  // a_per A, b_per B and cd_per C and D words. run_part(n, a, b, c, d, options) runs one part.
  // With both A sources, a wgmma part runs again with A from registers, and the two must agree.
  template <class RunPart>
  void split(const tcnum::Instruction& in, std::size_t units, std::size_t a_per, std::size_t b_per, std::size_t cd_per,
             const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c, std::uint32_t* d,
             RunPart run_part) {
    const std::size_t parts = devices_.size();
    std::vector<std::future<void>> jobs;
    for (std::size_t p = 0; p < parts; ++p) {
      const std::size_t first = units * p / parts, n = units * (p + 1) / parts - first;
      if (n == 0) continue;
      jobs.push_back(std::async(std::launch::async, [&, first, n, p] {
        tcnum::device::RunOptions opt;
        opt.device = devices_[p];
        const std::uint32_t *pa = a + first * a_per, *pb = b + first * b_per, *pc = c + first * cd_per;
        std::uint32_t* pd = d + first * cd_per;
        run_part(n, pa, pb, pc, pd, opt);
        if (!both_ || in.family != tcnum::Family::wgmma) return;
        std::vector<std::uint32_t> again(n * cd_per);
        opt.a_source = tcnum::device::ASource::registers;
        run_part(n, pa, pb, pc, again.data(), opt);
        for (std::size_t i = 0; i < again.size(); ++i)
          if (again[i] != pd[i]) {
            std::ostringstream os;
            os << in.name << ": A from shared memory and from registers disagree" << std::hex << ": " << pd[i]
               << " vs " << again[i];
            throw std::runtime_error(os.str());
          }
      }));
    }
    for (auto& j : jobs) j.get();
  }

  std::vector<int> devices_;
  bool both_;
  std::string names_;
};

}  // namespace

static void require_gpu() {
  std::string why;
  if (!tcnum::device::available(&why)) throw no_gpu_error(why, "use --backend emu --device-model FILE (a model plays the GPU)");
}

std::unique_ptr<tcnum::fuzz::Backend> make_device_backend(const std::vector<int>& devices, bool both_a_sources) {
  require_gpu();
  return std::make_unique<DeviceBackend>(devices, both_a_sources);
}

DeviceFacts device_facts(int device) {
  require_gpu();  // the first device call of a campaign: the message that says what to do
  const auto i = tcnum::device::info(device);
  return {i.sm, {{"device", i.name}, {"uuid", i.uuid}, {"driver", i.driver}, {"cuda_runtime", i.runtime}}};
}
#else
std::unique_ptr<tcnum::fuzz::Backend> make_device_backend(const std::vector<int>&, bool) {
  throw std::runtime_error("this numprobe was built without CUDA: --backend device needs a build with the CUDA "
                           "toolkit (see docs/probes.md); --backend emu --device-model FILE plays a device");
}
DeviceFacts device_facts(int) {
  throw std::runtime_error("this numprobe was built without CUDA: --backend device needs a build with the CUDA "
                           "toolkit (see docs/probes.md); use --backend emu --device-model FILE (a model plays the GPU)");
}
#endif

}  // namespace numprobe
