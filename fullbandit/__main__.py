import sys

from fullbandit.cli.launch import main

sys.exit(main())
