#!/usr/bin/env python3
"""What each parameter of tcnum's built-in CDNA3 model accounts for: reruns agreement.py with
one parameter set back to the NVIDIA default (or the neighbouring value) in the rules that use it,
and prints the agreement per instruction. Same arguments as agreement.py's first three; e.g.
    /work/scratch/mmasim-venv/bin/python tools/mmasim/ablate.py /work/scratch/MMA-Sim \\
        --amd-cases build/tools/amd_cases --cases 300 --json ablations.json
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

# (label, rule inputs it applies to or None for every fused-group rule, key, value)
ABLATIONS = [
    ("addend first_block (C aligned with the products)", None, "addend", "first_block"),
    ("sum_round_down_bits 30 (not 31)", None, "sum_round_down_bits", 30),
    ("addend_round_down_bits 23 (not 24)", None, "addend_round_down_bits", 23),
    ("frac_bits 23 (not 24)", None, "frac_bits", 23),
    ("block_rounding rz (not RNE)", None, "block_rounding", "rz"),
    ("zero_operand_exponent none (zeros not aligned)", None, "zero_operand_exponent", None),
    ("products_overflow_to_inf false", None, "products_overflow_to_inf", False),
    ("product_split 1 (fp8 not split)", "fp8", "product_split", 1),
    ("addend_drop_binades none (fp8 C never dropped)", "fp8", "addend_drop_binades", None),
    ("block_size 8 for fp8 (not 16)", "fp8", "block_size", 8),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mmasim")
    ap.add_argument("--amd-cases", required=True)
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--json")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    base = json.loads(subprocess.run([args.amd_cases, "gfx942", "--print-model"], check=True, capture_output=True,
                                     text=True).stdout)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, inputs, key, value in ABLATIONS:
            model = json.loads(json.dumps(base))
            for rule in model["rules"]:
                fused = rule.get("addend") == "after_products"
                if fused and (inputs is None or rule.get("inputs") == inputs):
                    if key == "addend" and value != "after_products":
                        for k in ("sum_round_down_bits", "addend_round_down_bits", "addend_drop_binades",
                                  "product_split"):
                            rule.pop(k, None)
                    rule[key] = value
            path = os.path.join(tmp, "m.json")
            with open(path, "w") as f:
                json.dump(model, f)
            out = os.path.join(tmp, "r.json")
            subprocess.run([sys.executable, os.path.join(here, "agreement.py"), args.mmasim, "--amd-cases",
                            args.amd_cases, "--cases", str(args.cases), "--model", path, "--json", out],
                           capture_output=True, text=True)
            with open(out) as f:
                r = json.load(f)["results"]
            per = {name: sum(v["agree"] for v in d.values()) / sum(v["cases"] for v in d.values()) for name, d in r.items()}
            worst = min(per, key=per.get)
            results[label] = {"worst_instruction": worst, "worst_agreement": per[worst],
                              "instructions_below_100": sum(1 for p in per.values() if p < 1.0)}
            print(f"{label:52} worst {100 * per[worst]:7.3f} % ({worst}); "
                  f"{results[label]['instructions_below_100']} instructions below 100 %")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
