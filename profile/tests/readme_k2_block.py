#!/usr/bin/env python3
"""readme_k2_block.py EMU ROOT: the model column of README.md's K2 block
(the matrix transpose's profile summary beside the hardware's) is what the
built neuron-emu prints for runtime_shim/models/matrix_transpose.yaml on a
trn2.3xlarge, to the digits the README shows."""

import json
import os
import re
import subprocess
import sys
import tempfile

COMMAND = "profile view -n runtime_shim/models/matrix_transpose.yaml -s t.ntff"


def readme_rows(root):
    """(key, model column) of each line of the block after its header."""
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip().endswith(COMMAND))
    rows = []
    for line in lines[start + 2:]:  # past the command and the column header
        if not line.strip():
            break
        match = re.match(r"\s+(\w+)\s+([0-9.]+)( us)?\s", line)
        if not match:
            sys.exit(f"README.md: cannot read the K2 row {line.strip()!r}")
        rows.append((match.group(1), match.group(2), match.group(3) is not None))
    return rows


def shown(value, text, microseconds):
    """`value` written with as many decimals as `text` has."""
    if microseconds:
        value *= 1e6
    decimals = len(text.split(".")[1]) if "." in text else 0
    return f"{value:.{decimals}f}"


def main():
    emu, root = sys.argv[1], sys.argv[2]
    rows = readme_rows(root)
    if len(rows) < 5:
        sys.exit(f"README.md: the K2 block has {len(rows)} rows")
    with tempfile.TemporaryDirectory() as work:
        session = os.path.join(work, "t.ntff")
        model = os.path.join(root, "runtime_shim", "models", "matrix_transpose.yaml")
        subprocess.run([emu, "profile", "capture", "-n", model, "-s", session, "--instance", "trn2.3xlarge"],
                       check=True, stdout=subprocess.DEVNULL)
        out = subprocess.run([emu, "profile", "view", "-s", session, "--output-format", "summary-json"],
                             check=True, capture_output=True, text=True).stdout
    summary = next(iter(json.loads(out).values()))
    wrong = 0
    for key, text, microseconds in rows:
        got = shown(float(summary[key]), text, microseconds)
        if got != text:
            print(f"README.md K2 block: {key} says {text}, neuron-emu gives {got}")
            wrong += 1
    print(f"{len(rows) - wrong} of {len(rows)} rows of README.md's K2 block match")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
