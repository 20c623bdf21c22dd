"""The catalog and models through Python."""

import json

import pytest

import tcnum


@pytest.mark.parametrize("arch", ["sm_70", "sm_80", "sm_89", "sm_90", "sm_100"])
def test_model_dict_round_trips_through_json(arch):
    model = tcnum.model(arch)
    again = json.loads(json.dumps(model))
    assert tcnum._catalog.resolve_model(None, again).to_json() == tcnum._catalog.resolve_model(arch, None).to_json()
    assert model["name"] == arch and model["rules"]


def test_model_from_a_file(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(tcnum.model("sm_90")))
    assert tcnum._catalog.resolve_model(None, path).sm == 90


def test_instructions_per_architecture():
    sm80 = tcnum.instructions("sm_80")
    sm90 = tcnum.instructions(90)
    names80 = {i.name for i in sm80}
    assert "mma.m16n8k16.f32.bf16.bf16.f32" in names80
    assert not any(i.family == "wgmma" for i in sm80)
    assert {i.n for i in sm90 if i.name.startswith("wgmma") and i.k == 16 and i.a == "bf16"} == set(range(8, 257, 8))
    ins = tcnum.instruction("mma.m16n8k32.f32.e4m3.e5m2.f32", "sm_90a")
    assert (ins.m, ins.n, ins.k, ins.a, ins.b, ins.c, ins.d) == (16, 8, 32, "e4m3", "e5m2", "f32", "f32")
    assert str(ins) == ins.name and ins in tcnum.instructions("sm_90")
