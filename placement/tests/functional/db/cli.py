"""Run placement-manage / placement-status in-process with a config file."""
import contextlib
import io
import os
import tempfile


def write_config(test, url, extra=''):
    """A placement.conf for ``url`` (None: no connection), removed later."""
    handle, path = tempfile.mkstemp(prefix='placement-', suffix='.conf')
    with os.fdopen(handle, 'w') as conf_file:
        conf_file.write('[DEFAULT]\n')
        if url is not None:
            conf_file.write('[placement_database]\nconnection = %s\n' % url)
        conf_file.write(extra)
    test.addCleanup(os.unlink, path)
    return path


def run(main, argv):
    """(exit code, stdout, stderr) of ``main(argv)``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()
