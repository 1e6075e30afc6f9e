import sys

from ovk_cli.cli import main

sys.exit(main())
