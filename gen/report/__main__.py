import sys

from gen.report.tables import main

sys.exit(main())
