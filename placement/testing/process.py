"""Ending a child process the tests started."""
import subprocess


def terminate(proc, timeout=30):
    """SIGTERM ``proc``, wait ``timeout`` seconds, then SIGKILL it."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
