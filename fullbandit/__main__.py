import sys

from fullbandit._launch import main

sys.exit(main())
