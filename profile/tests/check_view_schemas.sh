#!/bin/sh
# check_view_schemas.sh NEURON_EMU SOURCE_DIR
#
# Captures a profile on trn1.2xlarge and trn2.48xlarge (matmul_activation)
# and on inf1.xlarge (add: NeuronCore-v1 has no Sync or GpSimd engine for
# matmul_activation's DMA), views each as summary-json and json with the
# built neuron-emu, and validates the views against
# docs/profile-summary.schema.json and docs/profile-json.schema.json. Fails
# when a view has a key the schema does not list, a value of another type or
# out of its range, or lacks a required key; and when the schema lists a
# summary key no view printed. Exit 77 (skipped) when /usr/bin/python3 cannot
# import jsonschema (Debian package python3-jsonschema).
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 NEURON_EMU SOURCE_DIR" >&2
  exit 2
fi
emu=$1
root=$2
python=/usr/bin/python3

if ! why=$("$python" -c 'import jsonschema' 2>&1); then
  echo "skipped: $python cannot import jsonschema (Debian package python3-jsonschema): $why"
  exit 77
fi

dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT

views=""
for capture in trn1.2xlarge:matmul_activation trn2.48xlarge:matmul_activation inf1.xlarge:add; do
  instance=${capture%%:*}
  model=${capture#*:}
  session="$dir/$instance.ntff"
  if ! "$emu" profile capture -n "$root/runtime_shim/models/$model.yaml" -s "$session" --instance "$instance" \
       > "$dir/capture.log" 2>&1; then
    echo "profile capture of $model on $instance failed:"
    cat "$dir/capture.log"
    exit 1
  fi
  for format in summary-json json; do
    out="$dir/$instance.$format"
    if ! "$emu" profile view -s "$session" --output-format "$format" --output-file "$out" > "$dir/view.log" 2>&1; then
      echo "profile view --output-format $format of $model on $instance failed:"
      cat "$dir/view.log"
      exit 1
    fi
    views="$views $format:$out"
  done
done

# shellcheck disable=SC2086 # one word per view
"$python" - "$root/docs" $views <<'EOF'
import json
import pathlib
import sys
import warnings

import jsonschema

warnings.simplefilter("ignore", DeprecationWarning)  # RefResolver, after jsonschema 4.18

docs = pathlib.Path(sys.argv[1])
paths = {"summary-json": docs / "profile-summary.schema.json", "json": docs / "profile-json.schema.json"}
schemas = {}
for name, path in paths.items():
    schemas[name] = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schemas[name])
store = {paths[name].as_uri(): schemas[name] for name in paths}

# "integer" is a JSON number written without fraction or exponent: a count
# retyped as a double fails even when its value happens to be whole.
base = jsonschema.Draft202012Validator
strict = jsonschema.validators.extend(
    base,
    type_checker=base.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool)))


def validator(name):
    resolver = jsonschema.RefResolver(base_uri=paths[name].as_uri(), referrer=schemas[name], store=store)
    return strict(schemas[name], resolver=resolver)


def unique_keys(pairs):
    keys = [k for k, _ in pairs]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise ValueError(f"keys written twice: {', '.join(twice)}")
    return dict(pairs)


def no_constant(name):
    raise ValueError(f"{name} is not JSON")


failed = False
printed = set()
for view in sys.argv[2:]:
    name, file = view.split(":", 1)
    try:
        document = json.loads(pathlib.Path(file).read_text(), object_pairs_hook=unique_keys,
                              parse_constant=no_constant)
    except ValueError as e:
        print(f"{pathlib.Path(file).name}: not valid JSON: {e}")
        failed = True
        continue
    errors = sorted(validator(name).iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    for e in errors[:20]:
        where = "/".join(map(str, e.absolute_path)) or "(top)"
        print(f"{pathlib.Path(file).name}: {where}: {e.message}")
    if errors:
        failed = True
        print(f"{pathlib.Path(file).name}: {len(errors)} schema errors (docs/{paths[name].name})")
    else:
        print(f"{pathlib.Path(file).name}: valid")
    summaries = document.values() if name == "summary-json" else document.get("summary", [])
    for summary in summaries:
        if isinstance(summary, dict):
            printed.update(summary)

listed = set(schemas["summary-json"]["$defs"]["summary"]["properties"])
unused = sorted(listed - printed)
if unused:
    print(f"docs/profile-summary.schema.json lists keys no view printed: {', '.join(unused)}")
    failed = True
sys.exit(1 if failed else 0)
EOF
