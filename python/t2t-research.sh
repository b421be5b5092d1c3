#!/bin/sh
# t2t-research: strategy research over many day files on Dask
# (python/t2t/research.py).  Installed as build/t2t-research by make: it
# runs Debian's python3 (which has python3-distributed) on the tree's
# python/ package, next to the libt2t.so it loads.
here=$(dirname "$(readlink -f "$0")")
PYTHONPATH="$here/../python${PYTHONPATH:+:$PYTHONPATH}" exec /usr/bin/python3 -m t2t.research "$@"
