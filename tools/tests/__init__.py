"""The unit tests of the tools (run by stestr with the service's)."""
