"""GET /allocation_candidates of two servers on the worked examples
(``compare candidates``).

Both servers must use databases with the placement schema that this tool
may empty and fill directly with SQL (the schema is the same for this
service and upstream). For each scenario it loads one tree
(placement/testing/candidate_trees.py) into both
databases with the same uuids, asks each query of both servers and
prints the differences, with providers named. Exit status 1 when any
differs. tools/differential is the wider comparison.
"""
import json
import os
import uuid

import requests
import sqlalchemy as sa

from tools.benchlib import data
from tools.benchlib import inprocess  # noqa: F401 (this checkout on sys.path)

from placement.db import api as db_api
from placement.testing import candidate_trees as ct

BASE = ('resources=VCPU:1,MEMORY_MB:512,DISK_GB:500')
SCENARIOS = [
    ('FLAT_MIXED', [
        ('1.10', 'resources=VCPU:1'),
        ('1.17', 'resources=VCPU:1&required=HW_CPU_X86_AVX2'),
        ('1.22', 'resources=VCPU:1&required=!CUSTOM_GOLD'),
        ('1.39', 'resources=VCPU:1&required=in:CUSTOM_GOLD,HW_CPU_X86_AVX2'
                 '&required=!HW_CPU_X86_AVX2'),
        ('1.21', 'resources=VCPU:1&member_of={AGGA}'),
        ('1.32', 'resources=VCPU:1&member_of=!{AGGA}'),
        ('1.32', 'resources=VCPU:1&member_of=in:{AGGA},{AGGB}'
                 '&member_of=!{AGGB}'),
        ('1.35', 'resources=VCPU:1&root_required=CUSTOM_GOLD'),
        ('1.35', 'resources=VCPU:1&root_required=!CUSTOM_GOLD'),
        ('1.25', 'resources1=VCPU:1&required1=CUSTOM_GOLD'
                 '&resources2=MEMORY_MB:100&group_policy=none'),
        ('1.25', 'resources1=VCPU:1&resources2=VCPU:1&group_policy=none'),
        ('1.25', 'resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate'),
        ('1.25', 'resources=DISK_GB:15'),
        ('1.25', 'resources=DISK_GB:20,VCPU:2'),
        ('1.16', 'resources=VCPU:1&limit=2'),
        ('1.31', 'resources=VCPU:1&in_tree={CN2}'),
        ('1.31', 'resources1=VCPU:1&in_tree1={CN3}'),
        ('1.36', 'resources=VCPU:1&required_X=CUSTOM_GOLD&same_subtree=_X'),
        ('1.25', 'resources=VCPU:1&member_of1={AGGA}&resources1=DISK_GB:10'),
    ]),
    ('E1_SHARING_FLAT', [
        ('1.29', BASE), ('1.10', BASE), ('1.12', BASE),
        ('1.29', 'resources=DISK_GB:500'),
        ('1.29', 'resources=VCPU:1,DISK_GB:500&member_of={AGGA}'),
        ('1.16', BASE + '&limit=1'),
        ('1.24', 'resources=VCPU:1,DISK_GB:500&member_of={AGGA}'
                 '&member_of={AGGA}'),
    ]),
    ('E2_NESTED_SHARING', [
        ('1.29', BASE), ('1.28', BASE), ('1.36', BASE),
        ('1.28', 'resources=MEMORY_MB:512,DISK_GB:500'),
        ('1.28', 'resources=DISK_GB:500'),
        ('1.29', BASE + '&member_of={AGGA}'),
        ('1.29', BASE + '&member_of={AGGB}'),
        ('1.32', BASE + '&member_of=!{AGGB}'),
        ('1.32', 'resources=DISK_GB:500&member_of=!{AGGA}'),
        ('1.29', BASE + '&limit=3'),
        ('1.25', 'resources1=VCPU:1&resources2=MEMORY_MB:512'
                 '&group_policy=none'),
        ('1.29', 'resources1=VCPU:1&resources2=MEMORY_MB:512'
                 '&group_policy=none'),
        ('1.29', 'resources1=VCPU:1&resources2=DISK_GB:10'
                 '&group_policy=isolate'),
        ('1.34', 'resources=VCPU:1&resources1=DISK_GB:10'),
        ('1.27', 'resources=MEMORY_MB:512'),
        ('1.26', 'resources=MEMORY_MB:512'),
    ]),
    ('E4_NICS', [
        ('1.29', BASE + ',SRIOV_NET_VF:2&required=HW_NIC_ACCEL_SSL'),
        ('1.29', BASE + ',SRIOV_NET_VF:2&required=!HW_NIC_ACCEL_SSL'),
        ('1.29', BASE + ',SRIOV_NET_VF:2'),
        ('1.29', BASE + '&required=HW_NIC_ACCEL_SSL'),
        ('1.39', BASE + ',SRIOV_NET_VF:2&required=in:HW_NIC_ACCEL_SSL,'
                        'HW_CPU_X86_AVX'),
        ('1.29', BASE + '&resources1=SRIOV_NET_VF:1'
                        '&required1=HW_NIC_ACCEL_SSL'
                        '&resources2=SRIOV_NET_VF:1&group_policy=isolate'),
        ('1.29', BASE + '&resources1=SRIOV_NET_VF:1'
                        '&required1=HW_NIC_ACCEL_SSL'
                        '&resources2=SRIOV_NET_VF:1&group_policy=none'),
        ('1.34', 'resources1=SRIOV_NET_VF:1&resources2=SRIOV_NET_VF:1'
                 '&group_policy=none'),
        ('1.17', 'resources=SRIOV_NET_VF:1'),
        ('1.25', 'resources=VCPU:1&resources1=MEMORY_MB:512'),
        ('1.25', 'resources=VCPU:1&resources1=SRIOV_NET_VF:1'),
        ('1.26', 'resources=VCPU:1'),
        ('1.28', 'resources=VCPU:1'),
        ('1.38', 'resources=SRIOV_NET_VF:1&required=HW_NIC_ACCEL_SSL'
                 '&required=!HW_NIC_ACCEL_SSL'),
        ('1.39', 'resources=SRIOV_NET_VF:1&required=in:HW_NIC_ACCEL_SSL,'
                 'HW_CPU_X86_AVX&required=!HW_NIC_ACCEL_SSL,!HW_CPU_X86_AVX'),
        ('1.31', 'resources=VCPU:1&in_tree1={CN1}'),
        ('1.25', 'resources=VCPU:1&required1=HW_NIC_ACCEL_SSL'),
        ('1.25', 'resources=VCPU:1&member_of1={AGGA}'),
        ('1.25', 'resources0=VCPU:1'),
        ('1.25', 'resources=CUSTOM_NOPE:1'),
        ('1.25', 'resources=VCPU:1&required=CUSTOM_NOPE'),
    ]),
    ('E6_IN_TREE', [
        ('1.31', 'resources=VCPU:1,DISK_GB:50&in_tree={CN1}'),
        ('1.31', 'resources=VCPU:1,DISK_GB:50&in_tree={NUMA1_1}'),
        ('1.31', 'resources=VCPU:1&in_tree={CN1}&resources1=DISK_GB:10'),
        ('1.31', 'resources=VCPU:1&resources1=DISK_GB:10&in_tree1={SS1}'),
        ('1.31', 'resources1=VCPU:1&in_tree1={CN1}&resources2=DISK_GB:10'
                 '&in_tree2={SS1}&group_policy=isolate'),
        ('1.31', 'resources=VCPU:1,DISK_GB:50'),
        ('1.34', 'resources1=DISK_GB:10'),
        ('1.34', 'resources=VCPU:1&resources_D=DISK_GB:10&limit=5'),
    ]),
    ('E7_ROOT_REQUIRED', [
        ('1.35', 'resources1=VCPU:1,MEMORY_MB:512'
                 '&required1=HW_CPU_X86_AVX2&resources2=DISK_GB:100'
                 '&group_policy=none'
                 '&root_required=COMPUTE_VOLUME_MULTI_ATTACH'),
        ('1.35', 'resources1=VCPU:1,MEMORY_MB:512&resources2=DISK_GB:100'
                 '&group_policy=none'
                 '&root_required=!CUSTOM_WINDOWS_LICENSE_POOL'),
        ('1.35', 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:100'
                 '&required=STORAGE_DISK_SSD'),
    ]),
    ('E8_SAME_SUBTREE', [
        ('1.36', 'resources_COMPUTE=VCPU:1,MEMORY_MB:256'
                 '&resources_ACCEL=FPGA:1&group_policy=none'
                 '&same_subtree=_COMPUTE,_ACCEL'),
        ('1.36', 'required_NUMA=HW_NUMA_ROOT'
                 '&resources_ACCEL1=FPGA:1'
                 '&required_ACCEL1=CUSTOM_TYPE1'
                 '&resources_ACCEL2=FPGA:1'
                 '&required_ACCEL2=CUSTOM_TYPE2&group_policy=none'
                 '&same_subtree=_NUMA,_ACCEL1,_ACCEL2'),
        ('1.36', 'resources_ACCEL1=FPGA:1'
                 '&resources_ACCEL2=FPGA:1'
                 '&required_NUMA=HW_NUMA_ROOT&group_policy=isolate'
                 '&same_subtree=_NUMA,_ACCEL1,_ACCEL2'),
        ('1.36', 'resources=VCPU:1&resources_ACCEL=FPGA:1'
                 '&same_subtree=_ACCEL'),
        ('1.36', 'resources=VCPU:1&required_B=HW_NUMA_ROOT'
                 '&same_subtree=_B'),
        ('1.36', 'resources_C=VCPU:1&resources_A=FPGA:1'
                 '&required_N=HW_NUMA_ROOT&group_policy=none'
                 '&same_subtree=_C,_A&same_subtree=_N,_A'),
        ('1.36', 'resources=VCPU:1&required=HW_NUMA_ROOT,!HW_NUMA_ROOT'
                 '&resources_B=VCPU:1&required_B=CUSTOM_TYPE1,!CUSTOM_TYPE1'),
        ('1.22', 'resources=VCPU:1&root_required=X'),
        ('1.36', 'resources=VCPU:1&same_subtree=_A'),
        ('1.36', 'required_A=HW_NUMA_ROOT&same_subtree=_A'),
    ]),
    ('E9_SAME_SUBTREE_USED', [
        ('1.36', 'resources_COMPUTE=VCPU:2,MEMORY_MB:512'
                 '&resources_ACCEL=FPGA:1&group_policy=none'
                 '&same_subtree=_COMPUTE,_ACCEL'),
        ('1.36', 'resources_COMPUTE=VCPU:3'
                 '&resources_ACCEL=FPGA:1&group_policy=none'
                 '&same_subtree=_COMPUTE,_ACCEL'),
    ]),
    ('E10_NIC_AFFINITY', [
        ('1.36', 'resources_VIF_NET1=SRIOV_NET_VF:1'
                 '&required_VIF_NET1=CUSTOM_NET1'
                 '&resources_VIF_NET2=SRIOV_NET_VF:1'
                 '&required_VIF_NET2=CUSTOM_NET2'
                 '&required_NIC_AFFINITY=CUSTOM_HW_NIC_ROOT'
                 '&group_policy=none'
                 '&same_subtree=_VIF_NET1,_VIF_NET2,_NIC_AFFINITY'),
        ('1.36', 'resources_VIF1=SRIOV_NET_VF:1'
                 '&resources_VIF2=SRIOV_NET_VF:1'
                 '&required_NIC_AFFINITY=CUSTOM_HW_NIC_ROOT'
                 '&same_subtree=_VIF1,_VIF2,_NIC_AFFINITY'
                 '&group_policy=isolate'),
        ('1.36', 'resources_VIF1=SRIOV_NET_VF:1'
                 '&resources_VIF2=SRIOV_NET_VF:1'
                 '&required_NIC_AFFINITY=CUSTOM_HW_NIC_ROOT'
                 '&same_subtree=_VIF1,_VIF2,_NIC_AFFINITY'
                 '&group_policy=none'),
        ('1.33', 'resources_VIF1=SRIOV_NET_VF:1'
                 '&resources_VIF2=SRIOV_NET_VF:1&group_policy=isolate'),
    ]),
    ('E12_FORBIDDEN_AGGREGATES', [
        ('1.32', 'resources=VCPU:1,DISK_GB:10&member_of=!{AGGA}'),
        ('1.32', 'resources=VCPU:1,DISK_GB:10&member_of=!{AGGB}'),
        ('1.32', 'resources=VCPU:1,DISK_GB:10&member_of=!{AGGC}'),
        ('1.32', 'resources=VCPU:1,DISK_GB:10'),
        ('1.32', 'resources_V=VCPU:1&member_of_V=!{AGGC}'),
        ('1.33', 'resources_V=VCPU:1&member_of_V=!{AGGC}'
                 '&resources_D=DISK_GB:10&member_of_D=!{AGGB}'
                 '&group_policy=none'),
        ('1.33', 'resources_D=DISK_GB:10&member_of_D=!{AGGA}'),
        ('1.32', 'resources=VCPU:1,DISK_GB:10&member_of=in:{AGGA},{AGGB}'
                 '&member_of=!{AGGC}'),
    ]),
    ('E13_MAPPINGS', [
        ('1.34', 'resources=DISK_GB:1,MEMORY_MB:512,VCPU:1'
                 '&resources1=NET_BW_EGR_KILOBIT_PER_SEC:1000,'
                 'NET_BW_IGR_KILOBIT_PER_SEC:1000'
                 '&resources2=NET_BW_EGR_KILOBIT_PER_SEC:1000,'
                 'NET_BW_IGR_KILOBIT_PER_SEC:2000'
                 '&required2=CUSTOM_PHYSNET_1&group_policy=isolate'),
        ('1.34', 'resources=DISK_GB:1&resources1=NET_BW_EGR_KILOBIT_PER_SEC'
                 ':1000&resources2=NET_BW_EGR_KILOBIT_PER_SEC:1000'
                 '&group_policy=none'),
    ]),
]


def add_arguments(parser):
    parser.add_argument('--a', required=True)
    parser.add_argument('--a-db', required=True)
    parser.add_argument('--b', required=True)
    parser.add_argument('--b-db', required=True)
    parser.add_argument('-v', '--verbose', action='store_true')


def reset(engine):
    with engine.begin() as conn:
        data.reset(conn)


def normalise(body, names):
    """(sorted candidate strings, sorted summary strings) by name."""
    def name(rp_uuid):
        return names.get(rp_uuid, rp_uuid[:8])
    cands = [_candidate(req, name)
             for req in body.get('allocation_requests', [])]
    sums = []
    for rp_uuid, summary in body.get('provider_summaries', {}).items():
        summary = dict(summary)
        for key in ('parent_provider_uuid', 'root_provider_uuid'):
            if summary.get(key):
                summary[key] = name(summary[key])
        if 'traits' in summary:
            summary['traits'] = sorted(summary['traits'])
        sums.append('%s %s' % (name(rp_uuid), json.dumps(
            summary, sort_keys=True)))
    return sorted(cands), sorted(sums)


def _candidate(req, name):
    allocs = req['allocations']
    if isinstance(allocs, list):
        allocs = {a['resource_provider']['uuid']: a for a in allocs}
    text = ' + '.join(sorted(
        '%s(%s)' % (name(u), ','.join('%s:%s' % kv for kv in sorted(
            a['resources'].items()))) for u, a in allocs.items()))
    if 'mappings' in req:
        text += ' | ' + ' '.join(
            '%s=%s' % (k, sorted(name(u) for u in v))
            for k, v in sorted(req['mappings'].items()))
    return text


def _error_text(body):
    error = body['errors'][0]
    return (error['detail'].split('  Failed validating')[0].strip(),
            error.get('code'))


def ask(url, mv, query):
    resp = requests.get(url + '/allocation_candidates?' + query, headers={
        'x-auth-token': 'admin', 'openstack-api-version': 'placement ' + mv})
    return resp.status_code, resp.json()


def _scenario(args, engines, tree_name, scenario_queries):
    """The number of queries whose answers differ."""
    tree = getattr(ct, tree_name)
    uuids = {node.name: str(uuid.uuid4()) for node in tree}
    for agg in ('AGGA', 'AGGB', 'AGGC'):
        os.environ[agg + '_UUID'] = uuids[agg] = str(uuid.uuid4())
    for engine in engines:
        reset(engine)
        ct.build(db_api.Database(engine), tree, uuids)
    names = {value: key for key, value in uuids.items()}
    differences = 0
    for mv, template in scenario_queries:
        query = template.format(**uuids)
        shown = [(code, normalise(body, names) if code == 200
                  else _error_text(body))
                 for code, body in (ask(url, mv, query)
                                    for url in (args.a, args.b))]
        if 'limit=' in query:
            shown = [(code, len(body[0]) if code == 200 else body)
                     for code, body in shown]
        same = shown[0] == shown[1]
        differences += not same
        print('%s %s %s %s' % ('ok  ' if same else 'DIFF', tree_name, mv,
                               template))
        if not same or args.verbose:
            for label, answer in zip('ab', shown):
                print('   %s: %s' % (label, json.dumps(answer, indent=1)))
    return differences


def run(args):
    engines = [sa.create_engine(args.a_db), sa.create_engine(args.b_db)]
    differences = sum(_scenario(args, engines, tree_name, scenario_queries)
                      for tree_name, scenario_queries in SCENARIOS)
    print('%d differences' % differences)
    return 1 if differences else 0
