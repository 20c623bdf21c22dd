// Umbrella header: tcnum's core public API. Left out, include them by name where needed:
// tcnum/device.hpp (needs the CUDA build, TCNUM_HAVE_CUDA) and the study-specific headers.
#pragma once

#include "tcnum/format.hpp"
#include "tcnum/types.hpp"
#include "tcnum/instruction.hpp"
#include "tcnum/model.hpp"
#include "tcnum/dot.hpp"
#include "tcnum/gemm.hpp"
#include "tcnum/eigen.hpp"
#include "tcnum/corpus.hpp"
#include "tcnum/generators.hpp"
#include "tcnum/mpfr_reference.hpp"  // includes <mpfr.h>
