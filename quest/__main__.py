import sys

from quest.cli import main

sys.exit(main())
