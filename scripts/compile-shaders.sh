#!/bin/sh
# Compiles shaders/*.vert and shaders/*.frag to SPIR-V next to the sources
# (shaders/<name>.<stage>.spv), which are committed and embedded with include_bytes!.
# Needs glslangValidator (Debian/Ubuntu: apt-get install glslang-tools).
# tests/render.rs fails when the committed .spv differ from this script's output.
set -eu
cd "$(dirname "$0")/../shaders"
for source in *.vert *.frag; do
    glslangValidator -V --target-env vulkan1.1 -o "$source.spv" "$source" >/dev/null
done
