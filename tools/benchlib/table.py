"""Every figure of two ``bench all`` runs side by side (``bench table``).

    .venv/bin/python tools/bench table BEFORE_DIR AFTER_DIR

Reads the step outputs ``bench all --out DIR`` wrote (candidates flat,
nested and randomized, routes, claims; the fleet step when present) and
prints one Markdown table: for each figure, ours, upstream and their
ratio in each run, and ours after against ours before. Both runs should
come from the same machine, each beside upstream in the same minutes:
the ratios to upstream are the comparable figures when the machine's
load differed between the runs.

``bench table --ab DIR`` reads one ``bench all`` run in which the "other"
server was the before build (``UPSTREAM_VENV`` set to its virtualenv):
each figure of the after build beside the before build's, measured in
turns in the same minutes, which the machine's drift moves far less than
two runs an hour apart.
"""
import os
import re
import statistics

# Kinds of figure: how the ratio to upstream reads.
TIME, RATE, MEMORY, COUNT = 'time', 'rate', 'memory', 'count'

_CANDIDATE_ROW = re.compile(
    r'(\S.*?)\s+\d+ \|\s+([\d.]+) / [\d.]+\s+\|\s+([\d.]+) / [\d.]+\s+\|')
_SIZE = re.compile(r'\w+ N=(\d+)')
_THROUGHPUT = re.compile(
    r'# flat at concurrency \d+: ([\d.]+) vs ([\d.]+) req/s')
_PSS = re.compile(r'# (ours|other) worker MiB \(PSS now\): (\d+), (\d+)')
_ROUTE = re.compile(
    r'(\S.*?)\s+\|\s+([\d.]+) \[\s*[\d.]+\] \|\s+([\d.]+) \[\s*[\d.]+\] \|'
    r'.*?\|\s+([\d.]+)/([\d.]+)')
_ROUTE_RATE = re.compile(
    r'(\S.*?)\s+\|\s+([\d.]+) req/s \|\s+([\d.]+) req/s')


def add_arguments(parser):
    parser.add_argument('before', nargs='?',
                        help='the earlier run\'s --out directory')
    parser.add_argument('after', nargs='?',
                        help='the later run\'s --out directory')
    parser.add_argument('--ab', metavar='DIR',
                        help='one run of the after build (ours) beside '
                        'the before build (UPSTREAM_VENV)')


def _read(path):
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        return handle.read()


def candidates(text, label='%s @%s: median ms'):
    """[(figure, ours, upstream, kind)] of a ``bench candidates`` output."""
    found, size, pss = [], None, {}
    for line in text.splitlines():
        match = _SIZE.match(line)
        if match:
            size = match.group(1)
            continue
        match = _CANDIDATE_ROW.match(line)
        if match:
            found.append((label % (match.group(1), size),
                          float(match.group(2)), float(match.group(3)), TIME))
            continue
        match = _THROUGHPUT.match(line)
        if match:
            found.append(('throughput req/s @%s' % size,
                          float(match.group(1)), float(match.group(2)), RATE))
            continue
        match = _PSS.match(line)
        if match:
            pss[match.group(1)] = max(int(match.group(2)),
                                      int(match.group(3)))
            if len(pss) == 2:
                found.append(('worker PSS MiB @%s' % size, pss['ours'],
                              pss['other'], MEMORY))
                pss = {}
    return found


def routes(text):
    """[(figure, ours, upstream, kind)] of a ``bench routes`` output."""
    found = []
    for line in text.splitlines():
        match = _ROUTE.match(line)
        if match:
            name = match.group(1)
            found.append((name + ': median ms', float(match.group(2)),
                          float(match.group(3)), TIME))
            found.append((name + ': server cpu ms', float(match.group(4)),
                          float(match.group(5)), TIME))
            continue
        match = _ROUTE_RATE.match(line)
        if match:
            found.append((match.group(1) + ': req/s', float(match.group(2)),
                          float(match.group(3)), RATE))
    return found


def claims(texts):
    """[(figure, ours, upstream, kind)] of the claims runs: {who: [text of
    each run]}."""
    def figures(runs):
        rates = [float(re.search(r'\(([\d.]+) claims/s\)', t).group(1))
                 for t in runs]
        cpu = [float(re.search(r'server cpu\s+([\d.]+) ms', t).group(1))
               for t in runs]
        over = sum(int(re.search(r'over-commit\s+(\d+) units', t).group(1))
                   for t in runs)
        return statistics.mean(rates), statistics.mean(cpu), over
    ours, upstream = figures(texts['ours']), figures(texts['upstream'])
    return [('claims/s (mean of runs)', ours[0], upstream[0], RATE),
            ('claims server cpu ms/request', ours[1], upstream[1], TIME),
            ('claims over-commit units (sum of runs)', ours[2], upstream[2],
             COUNT)]


def run_figures(directory):
    """{(section, figure): (ours, upstream, kind)} and the sections'
    order, of one ``bench all`` directory."""
    figures, order = {}, []
    for kind in ('mysql', 'postgresql'):
        steps = [
            ('candidates flat', 'candidates-flat.txt', candidates),
            ('candidates nested', 'candidates-nested.txt', candidates),
            ('routes', 'routes.txt', routes),
        ]
        for section, name, parse in steps:
            text = _read(os.path.join(directory, '%s-%s' % (kind, name)))
            if text is not None:
                _add(figures, order, '%s %s' % (kind, section), parse(text))
        runs = {}
        for who in ('ours', 'upstream'):
            number = 1
            while True:
                text = _read(os.path.join(directory, '%s-claims-%s-%d.txt'
                                          % (kind, who, number)))
                if text is None:
                    break
                runs.setdefault(who, []).append(text)
                number += 1
        if runs.get('ours') and runs.get('upstream'):
            _add(figures, order, kind + ' claims', claims(runs))
        text = _read(os.path.join(directory, kind + '-candidates-random.txt'))
        if text is not None:
            _add(figures, order, kind + ' randomized', candidates(text))
    return figures, order


def _add(figures, order, section, found):
    for name, ours, upstream, kind in found:
        key = (section, name)
        if key not in figures:
            order.append(key)
        figures[key] = (ours, upstream, kind)


def ratio(ours, upstream, kind):
    """Ours against upstream, as each kind of figure reads."""
    if kind == COUNT or not ours or not upstream:
        return '-'
    value = {TIME: upstream / ours, RATE: ours / upstream,
             MEMORY: ours / upstream}[kind]
    return ('%.1fx' if value >= 10 else '%.2fx') % value


def number(value):
    if value < 10:
        return '%.3g' % value
    return '%.1f' % value if value < 1000 else '%d' % value


def render(before, after) -> str:
    """The Markdown table of two run_figures results."""
    (old, _), (new, order) = before, after
    lines = ['| figure | before ours | before upstream | before ratio | '
             'after ours | after upstream | after ratio | '
             'after/before (ours) |', '|' + '---|' * 8]
    section = None
    for key in order:
        if key not in old:
            continue
        if key[0] != section:
            section = key[0]
            lines.append('| **%s** |%s' % (section, ' |' * 7))
        (b_ours, b_up, kind), (a_ours, a_up, _) = old[key], new[key]
        change = '%.2fx' % (a_ours / b_ours) if b_ours else '-'
        lines.append('| %s | %s | %s | %s | %s | %s | %s | %s |' % (
            key[1], number(b_ours), number(b_up), ratio(b_ours, b_up, kind),
            number(a_ours), number(a_up), ratio(a_ours, a_up, kind),
            change))
    return '\n'.join(lines)


def render_ab(run) -> str:
    """The Markdown table of one run_figures result in which "ours" is
    the after build and "upstream" the before build."""
    figures, order = run
    lines = ['| figure | after | before | after/before |', '|---|---|---|---|']
    section = None
    for key in order:
        if key[0] != section:
            section = key[0]
            lines.append('| **%s** | | | |' % section)
        after, before, kind = figures[key]
        change = '%.2fx' % (after / before) if (
            before and kind != COUNT) else '-'
        lines.append('| %s | %s | %s | %s |' % (
            key[1], number(after), number(before), change))
    return '\n'.join(lines)


def run(args):
    if args.ab:
        print(render_ab(run_figures(args.ab)))
    elif args.before and args.after:
        print(render(run_figures(args.before), run_figures(args.after)))
    else:
        raise SystemExit('bench table: give BEFORE_DIR AFTER_DIR, or --ab DIR')
