"""The subcommands of ``tools/nova_fleet`` (see its docstring)."""
import asyncio
import json
import os
import subprocess
import tempfile
import time

from tools.benchlib import nova_fleet
from tools.benchlib import nova_model
from tools.benchlib import ownstack
from tools.benchlib import servers
from tools.benchlib import stats

PORTS = {'ours': 18812, 'upstream': 18811, 'bare': 18813}
STATE = os.path.join(servers.run_dir('fleet'), 'state.json')
# Nova's version for each periodic read (no header: 1.0).
READS = (('allocations', '/resource_providers/%s/allocations', None),
         ('inventories', '/resource_providers/%s/inventories', None),
         ('aggregates', '/resource_providers/%s/aggregates', '1.19'),
         ('traits', '/resource_providers/%s/traits', '1.6'),
         ('in_tree', '/resource_providers?in_tree=%s', '1.14'))
WRK_REPORT = '''
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d\\n", summary.requests,
    summary.duration, latency:percentile(95)))
end
'''


def _save(state):
    os.makedirs(os.path.dirname(STATE), exist_ok=True)
    with open(STATE, 'w') as f:
        json.dump(state, f, indent=1)


def _state():
    with open(STATE) as f:
        return json.load(f)


def start(args):
    """Start the private MariaDB (mysql), ours, upstream and the bare app."""
    mariadbd = (ownstack.mariadb_start(args.mariadb_port)
                if args.kind == 'mysql' else None)
    ours_db = ownstack.database(args.kind, 'fleet_ours', args.mariadb_port,
                                'psycopg')
    up_db = ownstack.database(args.kind, 'fleet_up', args.mariadb_port)
    found = {}
    up_venv = args.compare_venv or servers.upstream_venv()
    for label, venv, db_url, app, tree in (
            ('ours', servers.ours_venv(), ours_db, None, args.ours_tree),
            ('upstream', up_venv, up_db, None, args.compare_tree),
            ('bare', servers.ours_venv(), ours_db,
             'tools.benchlib.bare_wsgi:application', args.ours_tree)):
        if label == 'bare' and not args.bare:
            continue
        quiet = not args.access_log and (label == 'ours' or (
            label == 'upstream' and args.compare_venv))
        pid = ownstack.serve(label, venv, PORTS[label], db_url,
                             metrics=(label == 'ours' and args.metrics),
                             app=app, tree=tree, access_log=not quiet,
                             pool=args.pool)
        found[label] = {'url': 'http://127.0.0.1:%d' % PORTS[label],
                        'pid': pid, 'db': db_url}
    _save({'kind': args.kind, 'mariadbd': mariadbd, 'servers': found})
    print(json.dumps(found, indent=1))


def stop(args):
    for label in PORTS:
        ownstack.stop(label)
    if args.mariadb:
        ownstack.mariadb_stop()


def _cpu(entry, state):
    return ownstack.Cpu(entry['pid'], entry['db'], state['mariadbd'])


def _load_all(state, args):
    """Load each server's database once (bare shares ours'); uuids."""
    uuids = {}
    for label, entry in state['servers'].items():
        if label == 'bare':
            continue
        uuids[label] = nova_fleet.load(entry['db'], args.n, entry['url'],
                                       args.per_node, args.seed)
    if 'bare' in state['servers']:
        uuids['bare'] = uuids['ours']
    return uuids


def periodic(args):
    """Each periodic read under wrk, the servers in turns: requests/s and
    server + database CPU per request."""
    state = _state()
    uuids = _load_all(state, args)
    print('# %s, N=%d, %d instances a node, wrk -t1 -c%d -d%ds, %d rounds,'
          ' load %s' % (state['kind'], args.n, args.per_node,
                        args.connections, args.duration, args.rounds,
                        nova_fleet.load_average()))
    results = {}
    for _round in range(args.rounds):
        for name, template, version in READS:
            if args.only and name not in args.only.split(','):
                continue
            for label, entry in state['servers'].items():
                if label == 'bare' and name not in ('allocations',
                                                    'inventories'):
                    continue
                results.setdefault((name, label), []).append(
                    _wrk(entry, state, uuids[label][:100], template,
                         version, args))
    print('%-12s %-9s %9s %9s %9s %9s %8s' % (
        'read', 'server', 'req/s', 'api ms', 'db ms', 'total ms', 'p95 ms'))
    for (name, label), runs in results.items():
        med = [stats.median([r[i] for r in runs]) for i in range(5)]
        print('%-12s %-9s %9.0f %9.3f %9.3f %9.3f %8.1f' % (
            name, label, med[0], med[1], med[2], med[1] + med[2], med[3]))


def _wrk(entry, state, uuids, template, version, args):
    """(req/s, api CPU ms/req, db CPU ms/req, p95 ms, wrk CPU ms/req)."""
    script = tempfile.NamedTemporaryFile('w', suffix='.lua', delete=False)
    paths = ','.join('"%s"' % (template % rp) for rp in uuids)
    script.write('local paths = {%s}\nlocal i = 0\nrequest = function()\n'
                 '  i = i %% #paths + 1\n  return wrk.format(nil, paths[i])'
                 '\nend\n%s' % (paths, WRK_REPORT))
    script.close()
    headers = ['-H', 'x-auth-token: admin', '-H', 'accept: application/json']
    if version:
        headers += ['-H', 'openstack-api-version: placement %s' % version]
    cpu = _cpu(entry, state)
    before, children = cpu.sample(), os.times()
    out = subprocess.run(
        ['wrk', '-t1', '-c%d' % args.connections, '-d%ds' % args.duration,
         '-s', script.name] + headers + [entry['url']],
        capture_output=True, text=True, check=True).stdout
    after, done = cpu.sample(), os.times()
    api, db = ownstack.used(before, after)
    os.unlink(script.name)
    line = [x for x in out.splitlines() if x.startswith('RESULT')][0]
    count, micros, p95 = (int(x) for x in line.split()[1:])
    if 'Non-2xx' in out:
        raise RuntimeError('errors from %s:\n%s' % (entry['url'], out))
    wrk_cpu = (done.children_user + done.children_system
               - children.children_user - children.children_system)
    return (count / (micros / 1e6), api * 1000 / count, db * 1000 / count,
            p95 / 1000, wrk_cpu * 1000 / count)


PARTS = (('nodes', dict(scheduler=False, scrapes=False)),
         ('scheduler', dict(nodes=False, scrapes=False)),
         ('scrapes', dict(nodes=False, scheduler=False)))


def cost(args):
    """Server + database CPU per simulated node-minute, by part."""
    state = _state()
    uuids = _load_all(state, args)
    base = nova_model.model_of(args)
    labels = [label for label in state['servers'] if label != 'bare']
    print('# %s, N=%d, %d instances a node, %ds x%.0f speed, %d rounds, '
          'load %s' % (state['kind'], args.n, args.per_node, args.duration,
                       args.speed, args.rounds, nova_fleet.load_average()))
    print('%-9s %-9s %6s %8s %9s %9s %9s %8s' % (
        'server', 'part', 'req', 'req/s', 'api s/s', 'db s/s',
        'gen core', 'errors'))
    found = {}
    for _round in range(args.rounds):
        for part, off in PARTS:
            for label in labels:
                entry = state['servers'][label]
                model = base.__class__(**dict(base.__dict__, **off))
                if label == 'upstream' and base.capacity == 'metrics':
                    model = model.__class__(**dict(model.__dict__,
                                                   capacity='walk'))
                found.setdefault((label, part), []).append(
                    _measure(entry, state, model, uuids[label], args, part))
    _cost_table(found, labels, args)


def _measure(entry, state, model, uuids, args, part):
    cpu = _cpu(entry, state)
    before = cpu.sample()
    run, seconds, gen = asyncio.run(nova_fleet.play(
        entry['url'], args.connections, model, uuids, args.duration,
        args.speed, args.seed))
    api, db = ownstack.used(before, cpu.sample())
    count = nova_fleet.requests_count(run)
    errors = sum(run.errors.values())
    print('%-9s %-9s %6d %8.1f %9.3f %9.3f %9.3f %8d' % (
        entry['url'][-5:], part, count, count / seconds, api / seconds,
        db / seconds, gen / seconds, errors), flush=True)
    if run.errors:
        print('#   %s' % dict(run.errors.most_common(3)))
    return api / seconds, db / seconds, gen / seconds, count / seconds


def _cost_table(found, labels, args):
    """Per server: CPU per node-minute (nodes part), CPU per second of the
    scheduler and the scrapes, and the nodes per core that leaves."""
    print('\n%-9s %14s %14s %14s %14s %12s' % (
        'server', 'nodes ms/nm', '(api+db)', 'sched core', 'scrapes core',
        'nodes/core'))
    minute = args.speed / 60.0  # simulated minutes per second, per node
    for label in labels:
        med = {part: [stats.median([r[i] for r in found[(label, part)]])
                      for i in range(4)] for part, _ in PARTS}
        per_nm = (med['nodes'][0] + med['nodes'][1]) / (args.n * minute)
        fixed = sum(med[p][0] + med[p][1] for p in ('scheduler', 'scrapes'))
        # The fixed parts ran ``speed`` times faster than real time.
        fixed_real = fixed / args.speed
        per_core = (1.0 - fixed_real) / (per_nm / 60.0)
        print('%-9s %14.3f %6.3f+%6.3f %14.3f %14.3f %12.0f' % (
            label, per_nm * 1000,
            med['nodes'][0] / (args.n * minute) * 1000,
            med['nodes'][1] / (args.n * minute) * 1000,
            (med['scheduler'][0] + med['scheduler'][1]) / args.speed,
            (med['scrapes'][0] + med['scrapes'][1]) / args.speed,
            per_core))


def live(args):
    """The largest N each server sustains, rising, in real time."""
    state = _state()
    model = nova_model.model_of(args)
    labels = [label for label in state['servers'] if label != 'bare'
              and (not args.server or label == args.server)]
    best, failed = {label: 0 for label in labels}, set()
    print('# live: %s, %ds a level, %d connections, speed %.1f, load %s' % (
        state['kind'], args.duration, args.connections, args.speed,
        nova_fleet.load_average()))
    for n in [int(x) for x in args.levels.split(',')]:
        for label in labels:
            if label in failed:
                continue
            entry = state['servers'][label]
            uuids = nova_fleet.load(entry['db'], n, entry['url'],
                                    args.per_node, args.seed)
            m = model
            if label == 'upstream' and model.capacity == 'metrics':
                m = model.__class__(**dict(model.__dict__, capacity='walk'))
            cpu = _cpu(entry, state)
            before = cpu.sample()
            run, seconds, gen = asyncio.run(nova_fleet.play(
                entry['url'], args.connections, m, uuids, args.duration,
                args.speed, args.seed))
            api, db = ownstack.used(before, cpu.sample())
            ok, p95, late = run.verdict()
            print('%-9s N=%-6d %-4s %7.1f req/s gen %4.1f%% core, api %4.2f '
                  'db %4.2f cores, late p95 %5.0f ms | %s%s' % (
                      label, n, 'ok' if ok else 'FAIL',
                      nova_fleet.requests_count(run) / seconds,
                      gen / seconds * 100, api / seconds, db / seconds, late,
                      ' '.join('%s %.0f' % kv for kv in sorted(p95.items())),
                      ' | errors %s' % dict(run.errors.most_common(3))
                      if run.errors else ''), flush=True)
            if ok:
                best[label] = n
            else:
                failed.add(label)
        time.sleep(1)
    print('# largest N sustained: %s; load %s' % (
        ', '.join('%s %d' % kv for kv in best.items()),
        nova_fleet.load_average()))
