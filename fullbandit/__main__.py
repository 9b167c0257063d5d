import sys

from fullbandit.cli import main

sys.exit(main())
