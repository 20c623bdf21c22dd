"""Library GEMM calls (torch, cuBLAS/cuBLASLt) recorded on GPUs and their replay through
tcnum's GEMM schedules. ``inputs`` holds the input generator "tcnum-irwin12-v1"
(docs/library-corpus.md)."""
