#!/bin/sh
# The golden trace: profile the shipped example (runtime_shim/models/
# matmul_activation.yaml on a trn1.2xlarge) and write it as Perfetto, or
# check that neuron-emu still writes docs/golden/matmul_activation.pftrace
# byte for byte (profiles are deterministic).
#
# usage: golden_trace.sh NEURON_EMU SOURCE_DIR [--update]
set -eu
emu=$1
source_dir=$2
golden=$source_dir/docs/golden/matmul_activation.pftrace
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$emu" profile capture -n "$source_dir/runtime_shim/models/matmul_activation.yaml" -s "$dir/profile.ntff" >/dev/null
"$emu" profile view -s "$dir/profile.ntff" --output-format perfetto --output-file "$dir/trace.pftrace" >/dev/null
if [ "${3:-}" = "--update" ]; then
  cp "$dir/trace.pftrace" "$golden"
  echo "wrote $golden"
  exit 0
fi
if ! cmp -s "$dir/trace.pftrace" "$golden"; then
  echo "neuron-emu's trace of matmul_activation differs from $golden."
  echo "If the change is intended, open the new trace in ui.perfetto.dev, check it, then run"
  echo "  sh profile/tests/golden_trace.sh build/bin/neuron-emu . --update"
  exit 1
fi
echo "the trace is the golden one: $golden"
