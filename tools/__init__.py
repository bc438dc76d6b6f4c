"""Developer tools: benchmarks, comparisons with upstream, generators
(see README.rst). Not part of the service; the tests never import it."""
