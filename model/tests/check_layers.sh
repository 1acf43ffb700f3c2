#!/bin/sh
# The model's layers, lowest first: a file in one may include only its own
# layer and those before it, and nothing of protocol/ (the wire is the
# adapters' business; facts both need live in runtime_api/).
# Usage: check_layers.sh MODEL_DIR
set -eu
model=$1
layers="spec state program driver hardware runtime"
allowed=""
status=0
for layer in $layers; do
    allowed="$allowed $layer"
    for file in $(find "$model/$layer" -name '*.h' -o -name '*.cpp'); do
        for inc in $(sed -n 's/^#include "\(neuron\/[a-z_]*\/[a-z_/]*\.h\)".*/\1/p' "$file"); do
            case $inc in
            neuron/protocol/*)
                echo "$file includes $inc: the model includes nothing of protocol/"
                status=1 ;;
            neuron/model/*)
                used=$(echo "$inc" | cut -d/ -f3)
                case " $allowed " in
                *" $used "*) ;;
                *) echo "$file ($layer) includes $inc: $used is not below $layer"; status=1 ;;
                esac ;;
            esac
        done
    done
done
exit $status
