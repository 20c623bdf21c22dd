// The model fitted on the H100 by `numprobe fit --backend device` (docs/numprobe-h100-fit.json)
// must compute the same function as the built-in sm_90 model on every sm_90 instruction.
#include <gtest/gtest.h>

#include "tcnum/characterize/features.hpp"
#include "tcnum/core/model.hpp"

TEST(H100Fit, EqualsTheBuiltInSm90Model) {
  const tcnum::Model fitted = tcnum::load_model_file(TCNUM_SOURCE_DIR "/docs/numprobe-h100-fit.json");
  const auto differences = tcnum::features::compare_models(fitted, tcnum::builtin_model(90), 90);
  for (const auto& d : differences) ADD_FAILURE() << d;
  EXPECT_TRUE(differences.empty());
}
