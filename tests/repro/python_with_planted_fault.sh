#!/usr/bin/env bash
# EPSMITH_PYTHON for tests: runs the script given last with EPSMITH_TEST_REAL_PYTHON, after
# planting EPSMITH_TEST_TORCH_FAULT in torch (tests/repro/planted_torch_fault.py), so that
# `epsmith report` and a campaign confirm a finding without an upstream bug still existing.
exec "$EPSMITH_TEST_REAL_PYTHON" -I "$(dirname "$0")/planted_torch_fault.py" "$EPSMITH_TEST_TORCH_FAULT" "${@: -1}"
