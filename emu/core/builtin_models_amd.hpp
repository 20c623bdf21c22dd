// Built-in models of AMD's CDNA matrix cores (builtin_models_amd.cpp), for builtin_model().
#pragma once
#include "tcnum/core/model.hpp"

namespace tcnum::detail {

Model cdna_model(int arch);  // gfx908, gfx90a, gfx942 (parse_arch numbers)

}  // namespace tcnum::detail
