"""wire's tests; a package so that ``from tests.strategies import ...`` works
under ``pytest`` and ``python -m pytest`` alike (pytest puts the rootdir on
``sys.path`` for a package in its default ``prepend`` import mode)."""
