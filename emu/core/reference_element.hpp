// The reference datapath of one element (datapath.cpp), internal to the core: the public calls
// reach it through a plan with Datapath::reference (tcnum/core/plan.hpp); gemm's reference path
// and the block-scaled element calls reach it here, without compiling a plan per element.
#pragma once
#include <cstdint>
#include <span>

#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/plan.hpp"

namespace tcnum::detail {

// Term by term with exact wide sums; the scale vectors of a block-scaled instruction (empty
// spans otherwise).
std::uint32_t reference_element(const DatapathParams& p, const Instruction& in, std::span<const std::uint32_t> a,
                                std::span<const std::uint32_t> b, std::uint32_t c,
                                std::span<const std::uint32_t> scale_a = {}, std::span<const std::uint32_t> scale_b = {});
// The same datapath reading the plan's product schedule instead of rebuilding it: the path of
// every element the fast kernel hands back.
std::uint32_t reference_element(const MmaPlan& plan, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                std::uint32_t c, std::span<const std::uint32_t> scale_a = {},
                                std::span<const std::uint32_t> scale_b = {});

}  // namespace tcnum::detail
