#!/bin/sh
# Generator of the stonegame problem package (BAPCtools generators
# framework, generators.yaml): `stonegame gen` with the arguments of the
# line, the input on stdout. Needs the stonegame binary on PATH, or its path
# in $STONEGAME.
exec "${STONEGAME:-stonegame}" gen "$@"
