"""The shared library of tools/bench, tools/profile and tools/compare.

Tools, not tests: nothing here is imported by the test suite.

- ``http``: the HTTP clients (a new connection per request, as uwsgi's
  --http-socket closes each one);
- ``data``: the benchmark shapes (flat, nested) and loading them with SQL
  or through the API;
- ``procstat``: server CPU and memory read from /proc;
- ``stats``: percentiles and medians;
- ``servers``: ours and the upstream release side by side under uwsgi;
- ``inprocess``: the WSGI application in this process, and counting its
  SQL statements.

The scenarios (one module each: ``candidates``, ``routes``, ``claims``,
``fleet``, ``cpu``, ``memory``, ``suite``, ``profile_*``, ``compare_*``)
use these and print their tables.
"""
