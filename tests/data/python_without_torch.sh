#!/bin/sh
# A Python that cannot import torch (-S: no site-packages), as EPSMITH_PYTHON: the torch
# checks must skip with the reason, and the peer must print no traceback.
exec python3 -S "$@"
