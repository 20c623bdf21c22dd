#include "device_session.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "instr_option.hpp"
#include "tcnum/fuzz/sparse_cases.hpp"
#include "simulated_device.hpp"

#ifdef TCNUM_HAVE_CUDA
#include "options.hpp"
#include "tcnum/probes/device.hpp"
#endif

namespace numprobe {

void add_case_options(CLI::App* cmd, CaseSelection& s) {
  std::string dists;
  for (const std::string& d : tcnum::reference::frozen_v1::distribution_names()) dists += d + ", ";
  add_instr_option(cmd, s.instr, "every mma.sync, and wgmma at --wgmma-n", "all");
  cmd->add_option("--dist", s.dist, dists + "or all")->capture_default_str();
  cmd->add_option("--cases", s.cases, "cases per instruction and distribution")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000000));
  cmd->add_option("--wgmma-n", s.wgmma_n, "wgmma N values that --instr all and wgmma select")->delimiter(',')->capture_default_str();
}

std::vector<tcnum::Instruction> device_instructions(const std::string& which, int sm, const std::vector<int>& wgmma_n) {
  std::vector<tcnum::Instruction> all;
  for (const auto& in : tcnum::instructions_for(sm)) {
    if (in.family == tcnum::Family::tcgen05) continue;  // no tcgen05 probes yet
    if (!in.kind.empty()) continue;                      // nor sm_120 kind:: probes
    if (!tcnum::is_native(in, sm)) continue;             // e.g. m8n8k4 beyond Volta
    if (in.family == tcnum::Family::wgmma && std::find(wgmma_n.begin(), wgmma_n.end(), in.n) == wgmma_n.end())
      continue;
    all.push_back(in);
  }
  for (const auto& in : tcnum::sparse_instructions_for(sm)) {  // wgmma.sp: the N with a probe kernel
    const bool probed = in.family == tcnum::Family::mma || in.n == 8 || in.n == 64 || in.n == 256;
    if (probed && (in.family != tcnum::Family::wgmma || std::find(wgmma_n.begin(), wgmma_n.end(), in.n) != wgmma_n.end()))
      all.push_back(in);
  }
  return select_instructions(which, sm, all);
}

std::vector<tcnum::Case> draw_cases(const tcnum::Instruction& in, const std::string& dist, std::size_t count,
                                    std::uint64_t seed) {
  if (!in.sparse) return tcnum::reference::frozen_v1::generate(in, dist, count, seed);
  return tcnum::fuzz::sparse_cases(in, tcnum::DatapathParams{}, dist, seed, count);  // params: boundary only
}

std::vector<std::string> select_distributions(const std::string& which) {
  const auto all = tcnum::reference::frozen_v1::distribution_names();
  if (which == "all") return all;
  if (std::find(all.begin(), all.end(), which) == all.end()) {
    std::string list;
    for (const auto& d : all) list += " " + d;
    throw std::invalid_argument("unknown distribution '" + which + "'; valid:" + list + " all");
  }
  return {which};
}

std::uint64_t stream_seed(std::uint64_t seed, const std::string& instr, const std::string& dist) {
  std::uint64_t h = 1469598103934665603ull ^ seed;  // FNV-1a over the names, mixed with the seed
  for (char ch : instr + "/" + dist) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return h;
}

namespace {

#ifdef TCNUM_HAVE_CUDA
std::vector<std::uint32_t> run_on_gpu(const tcnum::Instruction& in, const std::vector<tcnum::Case>& cases,
                                      bool both_a_sources) {
  const std::vector<tcnum::Case>& dc = cases;
  auto d = tcnum::device::run_cases(in, dc);
  if (both_a_sources && in.family == tcnum::Family::wgmma) {
    tcnum::device::RunOptions regs;
    regs.a_source = tcnum::device::ASource::registers;
    const auto d2 = tcnum::device::run_cases(in, dc, regs);
    for (std::size_t i = 0; i < d.size(); ++i)
      if (d[i] != d2[i]) {
        std::ostringstream os;
        os << in.name << ": A from shared memory and from registers disagree on case " << i << std::hex
           << ": " << d[i] << " vs " << d2[i];
        throw std::runtime_error(os.str());
      }
  }
  return d;
}

int gpu_sm() {
  std::string why;
  if (!tcnum::device::available(&why))
    throw no_gpu_error(why, "record and check run instructions on a GPU; replay and --backend emu run anywhere");
  return tcnum::device::info().sm;
}

std::string gpu_description() {
  std::string why;
  if (!tcnum::device::available(&why)) return "no GPU: " + why;
  const auto info = tcnum::device::info();
  return info.name + ", sm_" + std::to_string(info.sm) + ", driver " + info.driver + ", CUDA runtime " + info.runtime;
}
#else
std::vector<std::uint32_t> run_on_gpu(const tcnum::Instruction&, const std::vector<tcnum::Case>&, bool) {
  throw std::runtime_error("this numprobe was built without CUDA: --backend device and record need a build "
                           "with the CUDA toolkit (see docs/probes.md)");
}
std::string gpu_description() { return "no GPU: numprobe was built without CUDA"; }
int gpu_sm() {
  throw std::runtime_error("this numprobe was built without CUDA: the device backend needs a build with the "
                           "CUDA toolkit (see docs/probes.md)");
}
#endif

}  // namespace

std::vector<std::uint32_t> run_on_device(const tcnum::Instruction& in, const std::vector<tcnum::Case>& cases,
                                         bool both_a_sources) {
  if (const auto sim = simulated_device()) return run_simulated(*sim, in, cases);
  return run_on_gpu(in, cases, both_a_sources);
}

int device_sm() {
  const auto sim = simulated_device();
  const int sm = sim ? sim->sm : gpu_sm();
  // A GPU newer (or other) than the catalog: no instruction list and no model to check it with.
  try {
    tcnum::parse_arch("sm_" + std::to_string(sm));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("the GPU (" + device_description() + ") has an architecture tcnum does not know: " +
                             e.what() + ". Nothing was run: add the architecture to the catalog and a model first "
                             "(docs/models.md).");
  }
  return sm;
}

std::string device_description() {
  if (const auto sim = simulated_device())
    return "SIMULATED sm_" + std::to_string(sim->sm) + " (TCNUM_SIMULATED_DEVICE=" + sim->setting +
           "; built-in model results, not hardware data)";
  return gpu_description();
}

}  // namespace numprobe
