#include "timing.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>

#include "bits.hpp"

namespace tcnum::python {

void bind_timing(nb::module_& m) {
  // Seconds of each of `repeats` calls of tcnum::gemm on uint32 vectors prepared beforehand,
  // i.e. what a C++ caller measures; the Python side times tcnum.gemm on arrays to compare.
  m.def("cpp_gemm_seconds", [](const Model& model, const std::string& name, const BitsIn& a, const BitsIn& b,
                               const BitsIn& c, int mm, int n, int k, int repeats, int threads) {
    const Instruction in = find_instruction(name, model.sm);
    const std::vector<std::uint32_t> av = widen(a, "a"), bv = widen(b, "b"), cv = widen(c, "c");
    GemmOptions opt;
    opt.threads = threads;  // 0: every core
    std::vector<double> seconds;
    nb::gil_scoped_release unlocked;
    for (int r = 0; r < repeats; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<std::uint32_t> d = gemm(model, in, mm, n, k, av, bv, cv, opt);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return seconds;
  }, nb::arg("model"), nb::arg("instruction"), nb::arg("a"), nb::arg("b"), nb::arg("c"), nb::arg("m"), nb::arg("n"),
        nb::arg("k"), nb::arg("repeats"), nb::arg("threads"));
}

}  // namespace tcnum::python
