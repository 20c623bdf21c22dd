// Corpus files from Python: replay with the C++ replayer, and read cases into arrays.
#pragma once
#include <nanobind/nanobind.h>

namespace tcnum::python {
void bind_corpus(nanobind::module_& m);
}
