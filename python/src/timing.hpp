// The same GEMM timed from C++ inside this process: the baseline for the binding's overhead.
#pragma once
#include <nanobind/nanobind.h>

namespace tcnum::python {
void bind_timing(nanobind::module_& m);
}
