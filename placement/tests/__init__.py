"""The service's tests: unit/ (pure code) and functional/ (real
databases, real servers). Their fixtures are in placement.testing.

A passing run prints only stestr's report. oslo.log's register_options,
which every ConfigOpts a test builds goes through, gives the root logger
a stand-in stderr handler when it has none; then every warning a test
provokes on purpose (a refused connection retried, a deprecated option
name, a policy file equal to the defaults, a COMMIT run again) and the
INFO lines of a logger a test turned up reach the terminal. A handler
that drops them is installed first; a test that checks a log line adds
its own handler (assertLogs, or one of its own).
"""
import logging

logging.getLogger().addHandler(logging.NullHandler())
