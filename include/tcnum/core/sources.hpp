// The publications tcnum's models, feature tests and published recipes follow, one string each,
// as reports print them. docs/models.md and docs/numprobe.md cite them in full.
#pragma once

namespace tcnum::sources {

// Feature tests (numprobe features): the papers whose method a test follows.
inline constexpr const char* fasi2021 =
    "Fasi, Higham, Mikaitis, Pranesh, \"Numerical behavior of NVIDIA tensor cores\", PeerJ CS 7:e330 (2021)";
inline constexpr const char* khattak_mikaitis2025 =
    "Khattak & Mikaitis, \"Accurate models of NVIDIA tensor cores\", HPEC 2025 (arXiv 2512.07004)";
inline constexpr const char* fttn2024 =
    "Li, Laguna, Gopalakrishnan et al., \"FTTN: Feature-targeted testing for numerical properties of NVIDIA & AMD "
    "matrix accelerators\", CCGrid 2024";
inline constexpr const char* fprev2025 =
    "Xie et al., \"FPRev: Revealing the order of floating-point summation\", USENIX ATC 2025";
inline constexpr const char* mikaitis2024_monotonicity =
    "Mikaitis, \"Monotonicity of multi-term floating-point adders\", IEEE TC 2024";
inline constexpr const char* ieee754_2019 = "IEEE 754-2019 §6-7";
inline constexpr const char* mma_sim2025 =
    "Xie et al., \"MMA-Sim: bit-accurate reference model of tensor cores and matrix cores\", arXiv 2511.10909 (2025)";

// Published recipes (tcnum/characterize/recipes.hpp): the section whose vectors a recipe runs.
inline constexpr const char* fasi2021_suite_a =
    "Fasi et al. 2021 (PeerJ CS 7:e330), test suite A: support for subnormal numbers";
inline constexpr const char* fasi2021_suite_b =
    "Fasi et al. 2021 (PeerJ CS 7:e330), test suite B: accuracy of the dot products";
inline constexpr const char* fasi2021_suite_c = "Fasi et al. 2021 (PeerJ CS 7:e330), test suite C: rounding modes";
inline constexpr const char* fasi2021_suite_d =
    "Fasi et al. 2021 (PeerJ CS 7:e330), test suite D: features of the accumulator";
inline constexpr const char* khattak_mikaitis2025_vectors =
    "Khattak & Mikaitis, IEEE HPEC 2025 (generalized test vectors; nvidia-tests.cu)";
inline constexpr const char* tcnum_generalisation = "tcnum generalisation (scaled vectors; not a published recipe)";

}  // namespace tcnum::sources
