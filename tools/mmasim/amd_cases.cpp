// amd_cases: tcnum's fuzz-generated cases for AMD MFMA instructions, as corpus lines whose D
// is tcnum's built-in model's result, for tools/mmasim/agreement.py to replay on MMA-Sim.
//   amd_cases <arch> <cases per instruction x distribution> <seed> [--model=FILE] [instruction ...]
//   amd_cases <arch> --print-model      (the built-in model's JSON)
// --model: a model JSON to compute D with instead of the built-in one (ablations: what each
// parameter of the built-in model accounts for).
// Each distribution's block starts with a comment line "# dist <name>".
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcnum/core/corpus.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/fuzz/generators.hpp"

namespace {

void write_cases(const tcnum::Model& model, const tcnum::Instruction& in, int arch, std::size_t count,
                 std::uint64_t seed) {
  const tcnum::DatapathParams& p = model.params_for(in);
  const auto k = static_cast<std::size_t>(in.k);
  for (const std::string& dist : tcnum::fuzz::distribution_names()) {
    std::vector<std::uint32_t> a(count * k), b(count * k), c(count);
    tcnum::fuzz::generate(in, p, dist, tcnum::fuzz::batch_seed(seed, in.name, dist, 0), count, a.data(), b.data(),
                          c.data());
    std::cout << "# dist " << dist << '\n';
    for (std::size_t t = 0; t < count; ++t) {
      const std::vector<std::uint32_t> row(a.begin() + t * k, a.begin() + (t + 1) * k);
      const std::vector<std::uint32_t> col(b.begin() + t * k, b.begin() + (t + 1) * k);
      const std::uint32_t d = tcnum::mma_element(model, in, row, col, c[t]);
      std::cout << tcnum::format_case_line(tcnum::arch_name(arch), in, row, col, c[t], d) << '\n';
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[2]) == "--print-model") {  // the built-in model, to edit for an ablation
    std::cout << tcnum::model_to_json(tcnum::builtin_model(tcnum::parse_arch(argv[1])));
    return 0;
  }
  if (argc < 4) {
    std::cerr << "usage: amd_cases <arch: gfx908|gfx90a|gfx942> <cases> <seed> [--model=FILE] [instruction ...]\n";
    return 2;
  }
  try {
    const int arch = tcnum::parse_arch(argv[1]);
    if (!tcnum::is_amd_arch(arch)) throw std::invalid_argument(std::string(argv[1]) + " is not an AMD gfx target");
    const std::size_t count = std::stoul(argv[2]);
    const std::uint64_t seed = std::stoull(argv[3]);
    int first = 4;
    tcnum::Model model = tcnum::builtin_model(arch);
    if (argc > 4 && std::string(argv[4]).rfind("--model=", 0) == 0) {
      model = tcnum::load_model_file(std::string(argv[4]).substr(8));
      first = 5;
    }
    std::vector<tcnum::Instruction> wanted;
    for (int i = first; i < argc; ++i) wanted.push_back(tcnum::find_instruction(argv[i], arch));
    if (wanted.empty()) wanted = tcnum::instructions_for(arch);
    for (const tcnum::Instruction& in : wanted) write_cases(model, in, arch, count, seed);
  } catch (const std::exception& e) {
    std::cerr << "amd_cases: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
