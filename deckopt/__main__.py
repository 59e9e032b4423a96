from deckopt.cli import main

raise SystemExit(main())
