"""python3 <this folder> ...: the rmalab kernel (rmalab_kernel/main.py).
The kernelspec runs it by its folder, so nothing needs to be on sys.path."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rmalab_kernel.main import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
