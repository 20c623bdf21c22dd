"""Library calls (docs/libraries.md): every recorded torch call on the H100 replayed on the CPU
with its plan from the shipped table, the table's rule entries still given by the rule, reveal
recovering schedules hidden in CPU black boxes, lookup, and the corpus reader on hostile input."""

import dataclasses
import gzip
import json
import random

import ml_dtypes
import numpy as np
import pytest

import tcnum
from conftest import REPO
from tcnum.libraries import corpus, cublaslt_log, plans, replay, reveal, tables

LIBRARY_CORPORA = REPO / "corpora" / "h100-libraries"


def _table_entries():
    out = {}
    for path in tables.tables():
        header, entries = tables.read_table(path)
        for e in entries:
            out[(e["corpus"], e["index"])] = e
    return out


@pytest.fixture(scope="module")
def recorded():
    """("<folder>/<file>", call) of every configuration of every H100 library corpus."""
    calls = []
    for path in sorted(p for p in LIBRARY_CORPORA.glob("**/*.jsonl.gz") if corpus.is_library_corpus(p)):
        header, lines = corpus.read_library_corpus(path)
        calls += [(f"{path.parent.name}/{path.name}", c) for c in lines]
    assert len(calls) >= 500, "the library corpora hold fewer than 500 configurations"
    return calls


@pytest.mark.corpus_replay
def test_every_recorded_call_with_a_plan_reproduces_every_recorded_bit(recorded):
    entries = _table_entries()
    reproduced, unexplained, failed = 0, 0, []
    for family, call in recorded:
        entry = entries.get((family, call["index"]))
        assert entry is not None, f"{family} #{call['index']} is not in the plan table"
        plan = tables.plan_of(entry)
        if plan is None:
            assert entry["reason"], entry
            unexplained += 1
            continue
        outcome = replay.reproduce(call, plan)
        if outcome.ok:
            reproduced += 1
        else:
            failed.append((family, call["index"], outcome))
    assert not failed, f"{len(failed)} calls no longer reproduce: {failed[:5]}"
    assert reproduced >= 500
    assert reproduced >= 0.95 * (reproduced + unexplained), (reproduced, unexplained)


@pytest.mark.corpus_replay
def test_entries_marked_rule_are_what_the_rule_gives(recorded):
    entries = _table_entries()
    for family, call in recorded:
        entry = entries[(family, call["index"])]
        if entry.get("source") != "rule":
            continue
        want = tables.plan_of(entry)
        got = plans.plan_for({**call, "logged": entry["logged"]} if entry.get("logged") else call)
        assert (got.instruction, got.schedule) == (want.instruction, want.schedule), (family, call["index"])


def test_calls_without_a_tensor_core_kernel_are_unexplained_with_the_reason(recorded):
    for family, call in recorded:
        if any("gemv" in k for k in call["kernels"]):
            with pytest.raises(plans.Unexplained, match="CUDA-core"):
                plans.plan_for(call)
            return
    pytest.skip("no gemv call recorded")


@pytest.mark.parametrize("seed", range(6))
def test_reveal_recovers_a_schedule_hidden_in_a_black_box(seed):
    rng = random.Random(seed)
    instr = rng.choice(["mma.m16n8k8.f32.bf16.bf16.f32", "mma.m16n8k16.f32.bf16.bf16.f32", "wgmma.m64n8k16.f32.bf16.bf16"])
    ik = int(instr.split(".")[1].rsplit("k", 1)[1])
    m, n, k = 8, 8, rng.randrange(100, 400)
    hidden = tcnum.Schedule(tile_k=ik * rng.choice([1, 2, 4]), partial_tile=rng.choice(["first", "last"]),
                            split_k=rng.choice([1, 2, 3]), slice_rule="whole_tiles")
    box = lambda a, b: tcnum.gemm(a, b, instr=instr, schedule=hidden)  # noqa: E731
    found = reveal.reveal(box, "bf16", "bf16", m, n, k)
    assert found.plan is not None, found.reason
    # Equivalent on fresh inputs of both distributions (a different but equal plan is fine).
    for s in (101, 102):
        for dist in ("normal", "wide"):
            a = tcnum.libraries.inputs.to_dtype(tcnum.libraries.inputs.values(s, 1, m, k, dist, 16), "bf16")
            b = tcnum.libraries.inputs.to_dtype(tcnum.libraries.inputs.values(s, 2, k, n, dist, 16), "bf16")
            want = np.asarray(box(a, b)).view(np.uint32)
            got = np.asarray(tcnum.gemm(a, b, instr=found.plan.instruction, schedule=found.plan.schedule)).view(np.uint32)
            assert np.array_equal(got, want), (hidden, found.plan)


def test_reveal_says_when_nothing_fits():
    def float64_box(a, b):  # no tensor core: exact products, one rounding
        return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)

    found = reveal.reveal(float64_box, "bf16", "bf16", 8, 8, 64, budget=40)
    assert found.plan is None and "no candidate" in found.reason


def test_lookup_finds_a_recorded_call_and_names_the_tables_when_not(recorded):
    family, call = next((f, c) for f, c in recorded if c["call"] == "torch.mm" and c["out"] == "f32")
    entry = _table_entries()[(family, call["index"])]
    plan = tables.lookup("torch.mm", a=call["a"], b=call["b"], out="f32", m=call["m"], n=call["n"], k=call["k"],
                         flags=call["flags"])
    assert plan == tables.plan_of(entry)
    with pytest.raises(tables.PlanNotFound, match=r"not in the plan tables \(.*jsonl.gz"):
        tables.lookup("torch.mm", a="bf16", out="f32", m=3, n=5, k=7777777)


def _write(path, lines):
    with gzip.open(path, "wt") as f:
        for ln in lines:
            f.write(ln if isinstance(ln, str) else json.dumps(ln))
            f.write("\n")


def test_the_corpus_reader_rejects_hostile_input(tmp_path, recorded):
    header = {"kind": "tcnum-library-corpus", "version": 1, "family": "x"}
    good = dict(recorded[0][1])
    cases = {
        "not JSON": [header, "{\"call\": "],
        "duplicate key": [header, '{"m": 1, "m": 2}'],
        "bad header": [{"kind": "something-else", "version": 1}, good],
        "missing key": [header, {k: v for k, v in good.items() if k != "out_bits"}],
        "bad hex": [header, {**good, "out_bits": ["zz"] * len(good["out_bits"])}],
        "wrong count": [header, {**good, "out_bits": good["out_bits"][:-1]}],
        "row out of range": [header, {**good, "rows": [good["m"]] + good["rows"][1:]}],
        "absurd shape": [header, {**good, "k": 10**12}],
        "a list, not an object": [header, [1, 2]],
    }
    for name, lines in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.jsonl.gz"
        _write(path, lines)
        with pytest.raises(corpus.LibraryCorpusError):
            corpus.read_library_corpus(path)
    (tmp_path / "empty.jsonl.gz").write_bytes(gzip.compress(b""))
    with pytest.raises(corpus.LibraryCorpusError, match="empty"):
        corpus.read_library_corpus(tmp_path / "empty.jsonl.gz")


def test_schedule_objects_round_trip_and_reject_bad_fields():
    s = tcnum.Schedule(split_k=4, slice_rule="whole_tiles", tile_k=64, reduction_tree=[[0, 1], [2, 3]], serial=False)
    assert tcnum.Schedule.from_json(s.to_json()) == s
    with pytest.raises(ValueError, match="unknown key"):
        tcnum.Schedule.from_json('{"splitk": 2}')
    with pytest.raises(ValueError, match="duplicate key"):
        tcnum.Schedule.from_json('{"split_k": 2, "split_k": 3}')
    with pytest.raises(ValueError, match="partial_tile"):
        tcnum.Schedule(partial_tile="middle")
    a = np.ones((4, 100), ml_dtypes.bfloat16)
    with pytest.raises(ValueError, match="not both"):
        tcnum.gemm(a, a.T, schedule=s, split_k=2)
    with pytest.raises(ValueError, match="leaves out a slice"):
        tcnum.gemm(a, a.T, schedule={"split_k": 3, "reduction_tree": [0, 1]})


def test_live_planning_follows_the_kernel_names_and_caches_a_table_lookup_reads(tmp_path):
    # A CPU black box with cuBLAS's split-K structure, as if it had launched these kernels.
    m, n, k = 8, 8, 1000
    kernels = ["nvjet_sm90_tst_64x8_64x16_1x1_h_bz_splitK_NNT", "cublasLt::splitKreduce_kernel<32, 16, int, float, float>"]
    hidden = tcnum.Schedule(split_k=3, slice_rule="whole_tiles", tile_k=64)
    box = lambda a, b: tcnum.gemm(a, b, instr="wgmma.m64n8k16.f32.bf16.bf16", schedule=hidden)  # noqa: E731
    found = tcnum.libraries.live.plan_live(box, a="bf16", b="bf16", out="f32", m=m, n=n, k=k, kernels=kernels,
                                           heuristic={"splitk_num": 3})
    assert found.plan is not None and found.plan.source == "rule" and found.tried == 1
    assert found.plan.schedule.split_k == 3 and found.plan.schedule.tile_k == 64
    tcnum.libraries.live.cache_plan(tmp_path, "my.gemm", a="bf16", b="bf16", out="f32", m=m, n=n, k=k, flags={},
                                    kernels=kernels, found=found)
    plan = tables.lookup("my.gemm", a="bf16", out="f32", m=m, n=n, k=k, flags={}, folder=tmp_path)
    assert (plan.instruction, plan.schedule) == (found.plan.instruction, found.plan.schedule)
    # Without the heuristic's split count the rule is wrong and reveal searches the split counts.
    found = tcnum.libraries.live.plan_live(box, a="bf16", b="bf16", out="f32", m=m, n=n, k=k, kernels=kernels)
    assert found.plan is not None and found.plan.source == "revealed" and found.plan.schedule.split_k == 3
    # cuBLASLt's log of the call (what plan_torch reads on the GPU host) gives the split count too.
    logged = cublaslt_log.lt_algos([(4, "cublasLtMatmul", "algo=[algoId=66 tile=MATMUL_TILE_64x8 numSplitsK=3 "
                                     "reductionScheme=REDUCTION_SCHEME_COMPUTE_TYPE] workSpaceSizeInBytes=4096")])
    assert logged[0]["num_splits_k"] == 3 and logged[0]["algo_id"] == 66 and logged[0]["workspace_bytes"] == 4096
    found = tcnum.libraries.live.plan_live(box, a="bf16", b="bf16", out="f32", m=m, n=n, k=k, kernels=kernels,
                                           cublaslt=logged)
    assert found.plan is not None and found.plan.source == "rule" and found.plan.schedule.split_k == 3


def test_the_cublaslt_log_parser_reads_the_recorded_log_sample():
    """Every matmul line of a cuBLASLt log recorded on the H100 parses to its algorithm."""
    text = (LIBRARY_CORPORA / "logged-seed5" / "cublaslt-log-sample.txt").read_text()
    msgs = [(5, "cublasLtMatmul", line) for line in text.splitlines() if "algo=[" in line]
    algos = cublaslt_log.lt_algos(msgs)
    assert len(algos) == len(msgs) > 10
    assert all(isinstance(x["algo_id"], int) and isinstance(x["num_splits_k"], int) for x in algos)
    assert cublaslt_log.parse_lt_algo("cublasLtMatmul", "no algorithm here") is None


def test_the_command_line_replays_and_looks_up(tmp_path, capsys):
    from tcnum.libraries.__main__ import main

    path = LIBRARY_CORPORA / "grid-pow2" / "mm_f32out.jsonl.gz"
    assert main(["replay", str(path)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.endswith("0 failed, 0 unexplained") and int(last.split()[0]) > 100
    assert main(["lookup", "torch.mm", "--a", "bf16", "--out", "f32", "--shape", "3x5x7777777"]) == 2
    assert "not in the plan tables" in capsys.readouterr().err
    assert main(["lookup", "torch.mm", "--a", "bf16", "--out", "f32", "--shape", "3x5"]) == 2
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(gzip.compress(b'{"kind": "nope"}\n'))
    assert main(["replay", str(bad)]) == 2


def test_the_reproduce_torch_example_runs_without_a_gpu(capsys):
    import importlib.util

    spec = importlib.util.spec_from_file_location("reproduce_torch", REPO / "examples" / "python" / "reproduce_torch.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.recorded_call()
    assert "64 of 64 recorded output elements reproduced bit for bit" in capsys.readouterr().out


def test_segment_k_tiles_segments_and_tree_follow_the_h100():
    from tcnum.libraries import segment_k

    # 1024x1024 in 64x128 tiles, G = 120: the last 8 tiles in the kernel's order (blocks of 2 tile
    # columns, rows serpentine) are rows 0-3 of columns 6-7 (what the H100's designed-input run showed).
    order = segment_k.tile_order(16, 8, 2)
    assert sorted(order[-8:]) == [(r, c) for r in range(4) for c in (6, 7)]
    assert len(set(order)) == 128
    assert segment_k.tile_order(2, 3, -1) == [(0, 0), (0, 1), (0, 2), (1, 2), (1, 1), (1, 0)]  # rows as blocks
    # 128 k-tiles in 15 segments: 7 of 8, then 8 of 9 (the remainder on the last ones).
    bounds = segment_k.segment_bounds(4096, 32, 15)
    assert [b // 32 for b in bounds] == [0, 8, 16, 24, 32, 40, 48, 56, 65, 74, 83, 92, 101, 110, 119, 128]
    assert segment_k.from_the_end(5) == (((4, 3), (2, 1)), 0)
    base = tcnum.Schedule(tile_k=32, tf32_operands="nearest_even")
    s = segment_k.schedule(base, 1024, 1024, 4096, (64, 128), 120, 2)
    assert [(r, c) for r, c, _ in s.regions] == [((0, 256), (768, 1024))]
    assert s.regions[0][2].slice_bounds == bounds
    assert segment_k.schedule(base, 1024, 1024, 4096, (64, 128), 128, 2) is None  # no partial wave


def test_a_schedule_with_regions_is_the_sub_gemms_and_follows_a_sample():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((40, 300)).astype(ml_dtypes.bfloat16)
    b = (rng.standard_normal((300, 24)) * 2.0 ** rng.integers(-10, 10, (300, 24))).astype(ml_dtypes.bfloat16)
    split = tcnum.Schedule(slice_bounds=(0, 100, 200, 300), reduction_tree=((2, 1), 0))
    s = tcnum.Schedule(regions=[((8, 24), (16, 24), split)])
    assert tcnum.Schedule.from_json(s.to_json()) == s
    d = np.asarray(tcnum.gemm(a, b, schedule=s)).view(np.uint32)
    plain = np.asarray(tcnum.gemm(a, b)).view(np.uint32)
    inside = np.asarray(tcnum.gemm(a[8:24], b[:, 16:24], schedule=split)).view(np.uint32)
    assert np.array_equal(d[8:24, 16:24], inside) and not np.array_equal(inside, plain[8:24, 16:24])
    mask = np.ones(d.shape, bool)
    mask[8:24, 16:24] = False
    assert np.array_equal(d[mask], plain[mask])
    rows, cols = [0, 9, 23, 30], [1, 17, 20]
    sub = np.asarray(tcnum.gemm(a[rows], b[:, cols], schedule=s.for_sample(rows, cols))).view(np.uint32)
    assert np.array_equal(sub, d[np.ix_(rows, cols)])
    with pytest.raises(ValueError, match="overlap"):
        tcnum.gemm(a, b, schedule=tcnum.Schedule(regions=[((0, 10), (0, 10), split), ((5, 6), (5, 6), split)]))


def _recorded_call(folder_file: str, index: int) -> dict:
    header, calls = corpus.read_library_corpus(LIBRARY_CORPORA / folder_file)
    return next(c for c in calls if c["index"] == index)


def test_tf32_nearest_away_is_gemm_on_operands_rounded_ties_away_by_hand():
    """Law: tf32_operands = "nearest_away" equals gemm (truncating) on operands rounded to tf32 to
    nearest with ties away from zero by hand (cvt.rna.tf32.f32); on tie-heavy data it differs from
    ties to even."""
    rng = np.random.default_rng(21)
    a = rng.standard_normal((24, 200)).astype(np.float32)
    b = rng.standard_normal((200, 16)).astype(np.float32)
    for x in (a, b):  # half the elements exact ties (low 13 bits 0x1000), of both signs
        u = x.view(np.uint32)
        tie = rng.random(u.shape) < 0.5
        u[tie] = (u[tie] & np.uint32(0xFFFFE000)) | np.uint32(0x1000)

    def away(x):
        u = x.view(np.uint32).astype(np.uint64)
        return ((u + 0x1000) & 0xFFFFE000).astype(np.uint32).view(np.float32)

    instr = "mma.m16n8k8.f32.tf32.tf32.f32"
    got = np.asarray(tcnum.gemm(a, b, instr=instr, schedule=tcnum.Schedule(tf32_operands="nearest_away")))
    want = np.asarray(tcnum.gemm(away(a), away(b), instr=instr))
    even = np.asarray(tcnum.gemm(a, b, instr=instr, schedule=tcnum.Schedule(tf32_operands="nearest_even")))
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert not np.array_equal(got.view(np.uint32), even.view(np.uint32))
    assert tcnum.Schedule.from_json(tcnum.Schedule(tf32_operands="nearest_away").to_json()).tf32_operands == "nearest_away"
    with pytest.raises(ValueError, match="tf32_operands"):
        tcnum.Schedule(tf32_operands="nearest_odd")


def _xla_f32_default_calls():
    out = []
    for folder in ("triton-jax", "triton-jax-seed2"):
        header, calls = corpus.read_library_corpus(LIBRARY_CORPORA / folder / "jax.jsonl.gz")
        out += [(folder, c) for c in calls if c["a"] == "f32" and c["flags"].get("precision") != "HIGHEST"
                and (c.get("xla") or {}).get("custom_call") == "__triton_nested_gemm_fusion"]
    return out


def test_xla_triton_fusions_round_f32_operands_to_tf32_ties_away():
    """JAX f32 dots at default precision compiled to XLA Triton GEMM fusions (H100, JAX 0.11): the
    rule (tf32 operands rounded to nearest, ties away) reproduces every recorded bit of every such
    call of both recordings (seed 2 held out), and the same plan with ties to even or truncation
    does not (the libraries' inputs have 16 fraction bits: exact tf32 ties are common)."""
    calls = _xla_f32_default_calls()
    assert len(calls) >= 20
    for folder, call in calls:
        plan = plans.plan_for(call)
        assert plan.schedule.tf32_operands == "nearest_away"
        assert replay.reproduce(call, plan).ok, (folder, call["index"])
        for other in ("nearest_even", "truncate"):
            wrong = replay.Plan(plan.instruction, dataclasses.replace(plan.schedule, tf32_operands=other))
            assert not replay.reproduce(call, wrong).ok, (folder, call["index"], other)


def test_butterfly_trees_and_the_xla_split_k_reductions_they_reveal():
    from tcnum.libraries import trees

    assert trees.butterfly(8, (0, 1, 2)) == trees.pairwise(list(range(8)))
    assert trees.butterfly(8, (1, 2, 0)) == (((0, 2), (4, 6)), ((1, 3), (5, 7)))
    assert trees.butterfly(8, (2, 0, 1)) == (((0, 4), (1, 5)), ((2, 6), (3, 7)))
    with pytest.raises(ValueError):
        trees.butterfly(6, (0, 1))
    # XLA split-K at 8 slices with a Triton reduce fusion: the recorded calls whose reduction adds
    # the index bits in another order reproduce with that butterfly and not with the pairwise tree.
    for folder, index, order in (("triton-jax", 98, (1, 2, 0)), ("triton-jax-seed2", 206, (2, 0, 1))):
        call = _recorded_call(f"{folder}/jax.jsonl.gz", index)
        rule = plans.plan_for(call)
        assert not replay.reproduce(call, rule).ok
        found = replay.Plan(rule.instruction, dataclasses.replace(rule.schedule, reduction_tree=trees.butterfly(8, order)))
        assert replay.reproduce(call, found).ok, (folder, index)
        assert reveal.reveal_recorded(call, 50).plan is not None


def test_xmma_split_k_kernel_and_nvjet_badd_rules_reproduce_their_calls():
    """Rules found this session from recorded bits: an sm80_xmma TF32 GEMM followed by its own
    `execute_split_k_kernel` is a parallel split-K over k-tiles dealt round robin, reduced in order
    in fp32; the nvjet `_badd_` kernels (addmm with N = 1) round D to the output type, then add the
    bias (two roundings)."""
    for folder_file, index in (("logged-seed4/tf32.jsonl.gz", 3424), ("validation-seed2/tf32.jsonl.gz", 91),
                               ("h100-libraries/tf32.jsonl.gz", 1523)):
        call = _recorded_call(folder_file.replace("h100-libraries/", ""), index)
        plan = plans.plan_for(call)
        assert plan.schedule.slice_rule == "interleaved_tiles" and plan.schedule.split_k > 1
        assert replay.reproduce(call, plan).ok, (folder_file, index)
    for index in (1570, 2281):
        call = _recorded_call("bias.jsonl.gz", index)
        plan = plans.plan_for(call)
        assert (plan.schedule.c, plan.schedule.sum_format) == ("after_reduction", call["out"])
        assert replay.reproduce(call, plan).ok
        one_rounding = replay.Plan(plan.instruction, dataclasses.replace(plan.schedule, sum_format="f32"))
        assert not replay.reproduce(call, one_rounding).ok


def test_cutlass_split_k_slices_of_64_are_revealed():
    """cuBLAS's CUTLASS split-K at 8 x 11008 x 4096 (TF32, 6 splits) cuts K into 5 x 704 + 576:
    reveal finds it with a granule of 32 or 64, which the rule's 16 (688) misses."""
    call = _recorded_call("logged-seed4/tf32.jsonl.gz", 818)
    assert not replay.reproduce(call, plans.plan_for(call)).ok
    found = reveal.reveal_recorded(call, 50)
    assert found.plan is not None and found.plan.source == "revealed"
    slices = found.plan.schedule.resolve(found.plan.instruction, call["k"])
    assert [min(b for b, _ in steps) for steps in slices] == [0, 704, 1408, 2112, 2816, 3520]
    assert found.plan.schedule.slice_align in (32, 64) and found.plan.schedule.split_k == 6


def test_segment_k_followed_by_a_split_k_kernel_adds_the_segments_from_the_last_one_by_one():
    from tcnum.libraries import segment_k

    assert segment_k.sequential_from_the_end(4) == (((3, 2), 1), 0)
    call = _recorded_call("logged-seed3/tf32.jsonl.gz", 601)  # 381 x 172 x 38544: 9 tiles, 13 segments
    plan = plans.plan_for(call)
    split = plan.schedule.regions[0][2]
    assert split.reduction_tree == segment_k.sequential_from_the_end(13)
    assert replay.reproduce(call, plan).ok
    pairwise = [(r, c, dataclasses.replace(s, reduction_tree=segment_k.from_the_end(13))) for r, c, s in plan.schedule.regions]
    assert not replay.reproduce(call, replay.Plan(plan.instruction, dataclasses.replace(plan.schedule, regions=tuple(pairwise)))).ok


def test_the_sm80_xmma_six_slice_tree_reproduces_its_calls_and_slice_order_does_not():
    """cuBLASLt algo 63 (sm80_xmma TF32 split-K after a Memset, no reduction kernel) with a bias at
    6 slices adds the partials by the fixed tree revealed on the H100 with designed inputs
    (tools/libraries/capture_reduction_order.py); at 4 slices in slice order."""
    for folder_file, index in (("logged-seed3/bias.jsonl.gz", 261), ("logged-seed4/bias.jsonl.gz", 893),
                               ("logged-seed5/bias.jsonl.gz", 2594)):
        call = _recorded_call(folder_file, index)
        plan = plans.plan_for(call)
        assert plan.schedule.reduction_tree == ((((0, 3), 5), (1, 4)), 2), (folder_file, index)
        assert replay.reproduce(call, plan).ok, (folder_file, index)
        in_order = replay.Plan(plan.instruction, dataclasses.replace(plan.schedule, reduction_tree=None))
        assert not replay.reproduce(call, in_order).ok, (folder_file, index)
    four = plans.plan_for(_recorded_call("logged-seed3/bias.jsonl.gz", 1526))
    assert four.schedule.split_k == 4 and four.schedule.reduction_tree is None


def test_tile_k_order_is_gemm_on_operands_permuted_by_hand():
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((3, 64)) * 2.0 ** rng.integers(-12, 12, (3, 64))).astype(np.float16)
    b = (rng.standard_normal((64, 5)) * 2.0 ** rng.integers(-12, 12, (64, 5))).astype(np.float16)
    order = tuple(p for half in (0, 2) for q in range(8) for p in (4 * q + half, 4 * q + half + 1))
    perm = np.concatenate([order, np.array(order) + 32])
    instr = "mma.m16n8k16.f32.f16.f16.f32"
    got = tcnum.gemm(a, b, instr=instr, schedule=tcnum.Schedule(tile_k=32, tile_k_order=order))
    by_hand = tcnum.gemm(np.ascontiguousarray(a[:, perm]), np.ascontiguousarray(b[perm, :]), instr=instr,
                         schedule=tcnum.Schedule(tile_k=32))
    assert np.asarray(got).tobytes() == np.asarray(by_hand).tobytes()
    assert np.asarray(got).tobytes() != np.asarray(tcnum.gemm(a, b, instr=instr, schedule=tcnum.Schedule(tile_k=32))).tobytes()
    with pytest.raises(ValueError, match="appears twice"):
        tcnum.gemm(a, b, instr=instr, schedule=tcnum.Schedule(tile_k=32, tile_k_order=(0,) * 32))


def test_xla_fusions_of_two_warps_run_mma_sync_with_fp8_upcast_in_pair_order():
    """An XLA Triton fusion of 2 warps (jnp.dot e4m3, 64 x 1856 x 2816, H100): Triton's MMAv2,
    mma.sync m16n8k16 on the fp8 operands taken exactly to f16, the pairs of each 32-wide k-tile
    dealt over its two instructions; k in order misses the wide-input call."""
    for index in (272, 273):
        call = _recorded_call("triton-jax-seed3/jax.jsonl.gz", index)
        plan = plans.plan_for(call)
        assert plan.instruction == "mma.m16n8k16.f32.f16.f16.f32" and plan.schedule.tile_k_order[:4] == (0, 1, 4, 5)
        assert replay.reproduce(call, plan).ok, index
    wide = _recorded_call("triton-jax-seed3/jax.jsonl.gz", 273)
    rule = plans.plan_for(wide)
    assert not replay.reproduce(wide, replay.Plan(rule.instruction, dataclasses.replace(rule.schedule, tile_k_order=None))).ok
    assert not replay.reproduce(wide, replay.Plan("wgmma.m64n8k32.f32.e4m3.e4m3",
                                                  dataclasses.replace(rule.schedule, tile_k_order=None))).ok
