"""The GPU re-run tools' CPU-side pieces (tools/libraries/rerun.py, capture_xla_ptx.py): corpus
references and what is read from XLA's dumped IR."""

import pathlib

import pytest

from conftest import REPO, load_tool



rerun = load_tool("rerun")
xla_ptx = load_tool("capture_xla_ptx")
CORPUS = REPO / "corpora" / "h100-libraries" / "triton-jax-seed3" / "jax.jsonl.gz"


def test_a_reference_reads_its_line_and_bad_ones_exit_2(capsys):
    call = rerun.read_call("t", f"{CORPUS}:272", lambda rec: None)
    assert (call["m"], call["n"], call["k"], call["a"]) == (64, 1856, 2816, "e4m3")
    for ref, says in ((f"{CORPUS}", "is not CORPUS:INDEX"), (f"{CORPUS}:999999", "no call with that index"),
                      ("no/such/file.jsonl.gz:1", "No such file"), (f"{CORPUS}:272", "refused here")):
        with pytest.raises(SystemExit) as e:
            rerun.read_call("t", ref, lambda rec: "refused here")
        assert e.value.code == 2
        assert says in capsys.readouterr().err


def test_the_ir_summary_names_the_mma_instructions_the_layout_and_threads(tmp_path: pathlib.Path):
    ir = tmp_path / "fusion.txt"
    ir.write_text('#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1]}>\n'
                  'asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0,$1}"\n.maxntid 64, 1, 1\n')
    (tmp_path / "other.txt").write_text("no instruction here\n")
    mma, threads, text = xla_ptx.ptx_summary(sorted(tmp_path.iterdir()))
    assert mma == ["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "triton nvidia_mma v2.0"]
    assert threads == ["64,1,1"] and "fusion.txt" in text and "other.txt" not in text
