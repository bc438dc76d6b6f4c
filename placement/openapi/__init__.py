"""The OpenAPI 3.1 document of the placement API, microversions 1.0 - 1.39.

Built by code, never by hand: ``builder.build()`` walks
``handler.ROUTE_DECLARATIONS``, takes each operation's version window
from its handlers, its query and request body schemas from the very
``Windows`` tables (or constants) the handlers validate with, and its
answers from ``operations`` (statuses, headers) and ``bodies`` (response
schemas, written here once). ``python -m placement.openapi`` writes the
published file.

A part of the document that exists only at some microversions carries
``x-placement-microversions: {"min": "1.N", "max": "1.M"}``, and a schema
that changes shape is an ``anyOf`` of such tagged branches;
``windows.at_version`` projects the document onto one microversion.

The service never imports this package: it reads the route table and
the handlers, it is not read by them (``.importlinter``).
"""
