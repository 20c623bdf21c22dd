"""Every corpus (device-recorded cases, corpora/**/*.tcc.gz) checked through Python: each
case line through tcnum.mma_element against the recorded D and against the C++ replay, a
sample of each file through whole tiles (tcnum.mma), and replay's reports of planted faults."""

import gzip

import numpy as np
import pytest

import tcnum
from conftest import REPO


def test_every_corpus_case_through_mma_element_agrees_with_the_cpp_replay(corpus_files):
    total = 0
    for path in corpus_files:
        replayed = tcnum.replay(path)
        assert replayed.failed == 0, str(replayed)
        cases = 0
        for group in tcnum.read_corpus(path):
            d = tcnum.mma_element(group.instruction, group.a, group.b, group.c, arch=group.arch, meta=group.meta)
            report = tcnum.testing.compare(d, group.d)
            assert report.count == 0, f"{path} ({group.instruction}), lines {group.line[:3]}...:\n{report}"
            cases += len(group)
        assert cases > 0 and cases == replayed.passed, path
        total += cases
    assert total >= len(corpus_files)


def diagonal_tiles(group, ins, tiles):
    """Cases packed into whole tiles: case t·s + i is row i of A, column i of B, C[i][i]
    (s = min(M, N) cases per tile); D's diagonal then holds the cases' results."""
    s = min(ins.m, ins.n)
    count = min(len(group), tiles * s) // s * s
    t = count // s
    a = np.zeros((t, ins.m, ins.k), dtype=group.a.dtype)
    b = np.zeros((t, ins.k, ins.n), dtype=group.b.dtype)
    c = np.zeros((t, ins.m, ins.n), dtype=group.c.dtype)
    i = np.arange(s)
    a[:, i, :] = group.a[:count].reshape(t, s, ins.k)
    b[:, :, i] = group.b[:count].reshape(t, s, ins.k).transpose(0, 2, 1)
    c[:, i, i] = group.c[:count].reshape(t, s)
    return a, b, c, count


def test_a_sample_of_every_corpus_through_whole_tiles(corpus_files):
    for path in corpus_files:
        for group in tcnum.read_corpus(path):
            ins = tcnum.instruction(group.instruction, group.arch)
            if ins.sparse:  # mma takes a dense A (its metadata derived from its zeros), a line its recorded
                continue    # metadata: the element test above covers sparse lines, with their meta
            a, b, c, count = diagonal_tiles(group, ins, tiles=4)
            d = tcnum.mma(ins.name, a, b, c, arch=group.arch)
            s = min(ins.m, ins.n)
            diag = d[:, np.arange(s), np.arange(s)].reshape(count)
            tcnum.testing.assert_bitexact(diag, group.d[:count], msg=f"{path} ({ins.name})")


def test_replay_takes_a_recursive_glob(corpus_files):
    """(Every file was replayed above; a glob over one folder keeps this one quick.)"""
    result = tcnum.replay(str(REPO / "corpora" / "**" / "wgmma.m64n8k*.tcc.gz"))
    wanted = [f for f in corpus_files if f.name.startswith("wgmma.m64n8k")]
    assert result and result.failed == 0 and len(result.files) == len(wanted) > 0


def test_replay_reports_a_planted_mismatch_and_a_malformed_line(tmp_path):
    good = "sm_90 mma.m16n8k8.f32.f16.f16.f32 3c003c00000000000000000000000000 3c004000000000000000000000000000 3f800000 40800000"
    bad = good[:-8] + "40800001"  # one bit off the true 4.0
    path = tmp_path / "planted.tcc.gz"
    with gzip.open(path, "wt") as f:
        f.write("# planted\n" + good + "\n" + bad + "\nsm_90 bogus 00 00 00 00\n")
    result = tcnum.replay(path)
    assert (result.passed, result.failed) == (1, 2) and not result
    mismatch, malformed = result.failures
    assert mismatch.line == 3 and not mismatch.malformed
    assert mismatch.instruction == "mma.m16n8k8.f32.f16.f16.f32" and mismatch.arch == "sm_90"
    assert mismatch.device.view(np.uint32) == 0x40800001 and mismatch.emulated.view(np.uint32) == 0x40800000
    assert mismatch.a.dtype == np.float16 and float(mismatch.a[0]) == 1.0
    assert "0x40800001" in str(mismatch) and "0x40800000" in str(mismatch)
    assert malformed.malformed and malformed.line == 4 and "bogus" in malformed.reason
    assert str(result).endswith("1 passed, 2 failed")
    with pytest.raises(ValueError, match="planted.tcc.gz:4: malformed"):
        tcnum.read_corpus(path)


def test_replay_with_a_changed_model_fails_where_the_hardware_disagrees(corpus_files):
    """A model is data: keeping more fraction bits than the H100 does (F = 30) must break
    replay of its bf16 corpus, and the unchanged dict must not."""
    path = next(f for f in corpus_files if "h100" in f.parts and f.name.startswith("mma.m16n8k16.f32.bf16"))
    model = tcnum.model("sm_90")
    assert tcnum.replay(path, model=model).failed == 0
    for rule in model["rules"]:
        rule["frac_bits"] = 30
    changed = tcnum.replay(path, model=model, max_failures=3)
    assert changed.failed > 0 and len(changed.failures) == 3
