"""The rmalab Jupyter kernel: Lua cells on the ranks of an MPI job, through
the REPL's JSON lines (docs/jupyter.md)."""
__version__ = "0.1.0"
