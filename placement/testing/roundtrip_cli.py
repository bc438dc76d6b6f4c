"""``placement-manage explain`` and ``audit`` read back (roundtrip).

Both run in-process with a real configuration file on the store's
database, in their JSON formats:

- ``allocation_candidates explain QUERY --provider UUID... --format
  json``: the query as given (with the batch's custom class, trait and
  aggregate uuids), the candidate count the API gives, one provider
  report per uuid asked, in order;
- ``audit --format json``: one ``empty_consumer`` finding per consumer
  whose allocations were removed behind the API (``Store.empty``),
  naming its project and user ids as the database stores them.
"""
import contextlib
import io
import json
import os
import tempfile
import urllib.parse

from placement.cmd import manage


class Cli:

    def __init__(self, store):
        self.store = store
        handle, self.conf_path = tempfile.mkstemp(prefix='placement-',
                                                  suffix='.conf')
        with os.fdopen(handle, 'w') as conf_file:
            conf_file.write('[placement_database]\nconnection = %s\n'
                            % store.probe.placement.url)

    def close(self):
        os.unlink(self.conf_path)

    def run(self, *argv):
        """(exit code, stdout, stderr) of placement-manage ``argv``."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(
                err):
            try:
                code = manage.main(['--config-file', self.conf_path]
                                   + list(argv))
            except SystemExit as exc:
                code = exc.code
        return code, out.getvalue(), err.getvalue()

    def explain(self, batch, kept):
        """Problems of explain's JSON document for the batch's query."""
        aggregates = sorted({a for ags in batch.aggregates for a in ags})
        pairs = [('resources', '%s:1' % batch.resource_class),
                 ('required', batch.trait)]
        if aggregates:
            pairs.append(('member_of', 'in:' + ','.join(aggregates)))
        query = urllib.parse.urlencode(pairs)
        asked = [p.uuid for p in kept[:3]]
        extra = [arg for rp_uuid in asked for arg in ('--provider',
                                                      rp_uuid)]
        code, out, err = self.run('allocation_candidates', 'explain', query,
                                  '--microversion', '1.39', '--format',
                                  'json', *extra)
        if code != 0:
            return ['explain %s: exit %s: %s' % (query, code, err[-500:])]
        document = json_document(out)
        if document is None:
            return ['explain %s: no JSON: %r' % (query, out[:600])]
        api = self.store.send('GET', '/allocation_candidates',
                              query=tuple(pairs))[1]
        want = (query, len(json.loads(api.body)['allocation_requests']),
                asked)
        got = (document['query'], document['candidates'],
               [report['uuid'] for report in document.get(
                   'provider_reports', ())])
        problems = [] if got == want else ['explain: got %r, wrote %r' % (
            got, want)]
        subjects = _leaves([step.get('subject') for group in document[
            'groups'] for step in group['steps']])
        missing = {batch.resource_class, batch.trait, *aggregates} - subjects
        if missing:
            problems.append('explain: the steps name %r, not %r' % (
                sorted(subjects), sorted(missing)))
        return problems

    def audit(self):
        """Problems of audit's JSON findings about emptied consumers."""
        code, out, err = self.run('audit', '--format', 'json')
        document = json_document(out)
        if document is None:
            return ['audit: exit %s, no JSON: %s %s' % (code, out[:600],
                                                        err[-300:])]
        found = {f['subject']: f for f in document['findings']
                 if f['check'] == 'empty_consumer'}
        problems = []
        for consumer in self.store.consumers.values():
            if not consumer.emptied:
                continue
            finding = found.get(consumer.uuid)
            want = {'project_id': consumer.stored_project,
                    'user_id': consumer.stored_user}
            got = finding and {key: finding['details'][key]
                               for key in want}
            if got != want:
                problems.append('audit: empty consumer %s: got %r, wrote '
                                '%r' % (consumer.uuid, got, want))
            elif 'project %s, user %s' % (
                    consumer.stored_project,
                    consumer.stored_user) not in finding['message']:
                problems.append('audit: message %r lacks the ids %r' % (
                    finding['message'], want))
        return problems


def json_document(out):
    """The JSON document a command printed, or None. The document starts
    at a line ``{``: the live server's request log, written from its own
    thread while the command's stdout is redirected here in-process,
    may come before it (never in a command run on its own)."""
    lines = out.split('\n')
    if '{' not in lines:
        return None
    text = '\n'.join(lines[lines.index('{'):])
    try:
        return json.JSONDecoder().raw_decode(text)[0]
    except ValueError:
        return None


def _leaves(value):
    """The strings anywhere in ``value`` (lists, dicts, strings)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return set().union(*map(_leaves, value)) if value else set()
    return set()
