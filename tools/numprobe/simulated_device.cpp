#include "simulated_device.hpp"

#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <stdexcept>

#include "tcnum/core/dot.hpp"
#include "tcnum/core/sparse.hpp"
#include "tcnum/core/model.hpp"

namespace numprobe {
namespace {

int parse_count(std::string_view text, const std::string& setting) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0)
    throw std::invalid_argument("TCNUM_SIMULATED_DEVICE='" + setting + "': '" + std::string(text) +
                                "' is not a non-negative integer");
  return v;
}

}  // namespace

std::optional<SimulatedDevice> simulated_device() {
  const char* env = std::getenv("TCNUM_SIMULATED_DEVICE");
  if (!env) return std::nullopt;
  SimulatedDevice dev;
  dev.setting = env;
  std::string_view rest = env;
  bool first = true;
  while (!rest.empty() || first) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (first) {
      if (item.substr(0, 3) != "sm_") break;
      dev.sm = parse_count(item.substr(3), dev.setting);
      first = false;
    } else if (item.substr(0, 11) == "kill_after=") {
      dev.kill_after = parse_count(item.substr(11), dev.setting);
    } else {
      throw std::invalid_argument("TCNUM_SIMULATED_DEVICE='" + dev.setting + "': unknown item '" + std::string(item) +
                                  "' (expected sm_NN[,kill_after=N])");
    }
  }
  if (first) throw std::invalid_argument("TCNUM_SIMULATED_DEVICE='" + dev.setting + "': expected sm_NN[,kill_after=N]");
  return dev;
}

std::vector<std::uint32_t> run_simulated(const SimulatedDevice& dev, const tcnum::Instruction& in,
                                         const std::vector<tcnum::Case>& cases) {
  static std::atomic<int> batches{0};
  if (dev.kill_after > 0 && ++batches > dev.kill_after) std::raise(SIGKILL);
  const tcnum::Model& model = tcnum::builtin_model(dev.sm);
  std::vector<std::uint32_t> d;
  d.reserve(cases.size());
  for (const auto& c : cases)
    d.push_back(in.sparse          ? tcnum::sparse_element(model.params_for(in), in, c.a, c.b, c.c, c.meta)
                : in.block_scaled() ? tcnum::mma_element(model, in, c.a, c.b, c.c, c.scale_a, c.scale_b)
                                    : tcnum::mma_element(model, in, c.a, c.b, c.c));
  return d;
}

}  // namespace numprobe
