"""Library GEMM calls (torch, cuBLAS/cuBLASLt) recorded on GPUs, and their reproduction on the
CPU through tcnum's GEMM schedules (docs/libraries.md, docs/library-corpus.md).

    plan = tcnum.libraries.lookup("torch.mm", a="bf16", out="f32", m=4096, n=4096, k=4096)
    d = tcnum.gemm(a, b, instr=plan.instruction, schedule=plan.schedule)

inputs: the input generator "tcnum-irwin12-v1"; corpus: library corpus files; kernels: what a
kernel name says; plans: plans by rule and reveal's candidates; replay: rebuild and compare;
reveal: find a black box's plan; tables: shipped plans and lookup; live: planning on the GPU
host (kernel names from torch.profiler, reveal, a cached plan table).
"""

from . import corpus, inputs, kernels, live, plans, replay, reveal, tables
from .plans import Unexplained, plan_for
from .replay import Plan, reproduce
from .reveal import reveal as reveal_plan
from .tables import PlanNotFound, lookup

__all__ = ["Plan", "PlanNotFound", "Unexplained", "corpus", "inputs", "kernels", "live", "lookup", "plan_for", "plans",
           "replay", "reproduce", "reveal", "reveal_plan", "tables"]
