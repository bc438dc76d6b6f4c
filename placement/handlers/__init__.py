"""HTTP handlers, one module per resource.

A handler reads top to bottom: context and version, authorize, parse path,
query and body, call one operation in ``placement.objects``, render, and
return the response. No SQL here.
"""
