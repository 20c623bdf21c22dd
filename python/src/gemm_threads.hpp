// The thread count of a GEMM call. GemmOptions carries it where the core has the field; older
// cores read TCNUM_THREADS from the environment only, so it is set there for the call.
#pragma once
#include <cstdlib>
#include <string>

#include <tcnum/tcnum.hpp>

namespace tcnum::python {

template <typename Options>
void set_threads(Options& opt, int threads) {
  if (threads <= 0) return;  // the library's default: all cores
  if constexpr (requires { opt.threads; }) {
    opt.threads = threads;
  } else {
    setenv("TCNUM_THREADS", std::to_string(threads).c_str(), 1);
  }
}

}  // namespace tcnum::python
