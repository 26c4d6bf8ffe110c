from gen.cli.commands import main

raise SystemExit(main())
