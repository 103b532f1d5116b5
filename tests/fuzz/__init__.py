"""msgcli's own fuzzing harness: mutations of the real logs in ``fixtures/real``, run
through every command. ``mutate`` makes the inputs, ``drive`` runs the commands and
checks what they give, ``run`` is ``make fuzz``; ``tests/test_fuzz.py`` runs a seeded
slice of it in ``make test-all``."""
