import sys

from tools.cli.main import main

sys.exit(main())
