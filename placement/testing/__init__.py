"""Fixtures shared by the tests (placement/tests) and the developer tools
(tools/): fresh databases per backend, the application in this process,
the gabbi fixtures and where the gabbi files are, candidate trees, seed
data, generated requests, live servers under uwsgi, the Galera cluster.

Not part of the service (no module of it imports this package) and not
tests: nothing here imports placement.tests or tools, so that the tests
and the tools never import each other (.importlinter holds all three).
"""
