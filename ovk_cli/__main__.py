import sys

from ovk_cli.entry_point import main

sys.exit(main())
