import sys

from ecoscore.cli import main

sys.exit(main())
