"""`python3 -m simt run script.py [args]`: the same as the `simt` command."""
import sys

from simt.cli import main

sys.exit(main())
