"""Small fleets and request shapes for the free-capacity tests, and the
brute force they are checked against.

``fleets()`` draws provider trees (candidate_trees.Node lists): flat
hosts, hosts with NUMA children and PCI grandchildren, a sharing disk
pool, reserved amounts, allocation ratios, min/max unit, step sizes
and amounts already allocated. ``shapes()`` draws query strings of
GET /allocation_candidates over the same classes and traits.

``claim_until_full`` is the brute force: it really claims through the
API, the first candidate of GET /allocation_candidates (limit=1, the
service not randomizing) after the other, until none is left.
"""
import json
import uuid

from hypothesis import strategies as st

from placement.testing import candidate_trees as ct
from placement.testing import concurrency

FPGA_TRAIT = 'CUSTOM_FPGA_X'
GOLD = 'CUSTOM_GOLD'
AGGS = ('AGGA', 'AGGB')


@st.composite
def inventories(draw, total_max=8):
    """One class's inventory (candidate_trees' spec) and amount used."""
    total = draw(st.integers(2, total_max))
    reserved = draw(st.sampled_from((0, 0, 1)))
    reserved = min(reserved, total - 1)
    ratio = draw(st.sampled_from((1.0, 1.0, 1.5, 2.0)))
    step = draw(st.sampled_from((1, 1, 1, 2)))
    max_unit = draw(st.one_of(st.just(max(step, total)),
                              st.integers(step, max(step, total))))
    min_unit = draw(st.sampled_from((1, 1, 1, step)))
    capacity = int((total - reserved) * ratio)
    used = draw(st.integers(0, max(0, capacity // 3)))
    return {'total': total, 'reserved': reserved,
            'allocation_ratio': ratio, 'step_size': step,
            'max_unit': max_unit, 'min_unit': min_unit}, used


@st.composite
def _provider(draw, name, parent, classes, traits=(), aggregates=()):
    inventory, used = {}, {}
    for rc in classes:
        if rc == 'FPGA':
            inventory[rc], amount = {'total': draw(st.integers(1, 3))}, 0
            continue
        inventory[rc], amount = draw(inventories())
        if amount:
            used[rc] = amount
    return ct.Node(name, parent, inventory, list(traits), list(aggregates),
                   used)


@st.composite
def host(draw, number):
    """One compute host: flat, or with NUMA children (and an FPGA card
    under some)."""
    name = 'H%d' % number
    traits = [GOLD] if draw(st.booleans()) else []
    aggregates = draw(st.lists(st.sampled_from(AGGS), max_size=2,
                               unique=True))
    if not draw(st.booleans()):
        return [draw(_provider(name, None,
                               ('VCPU', 'MEMORY_MB', 'DISK_GB'), traits,
                               aggregates))]
    # A root with no inventory of its own, or the host's disk.
    classes = draw(st.sampled_from(((), ('DISK_GB',), ('DISK_GB',))))
    nodes = [draw(_provider(name, None, classes, traits, aggregates))]
    for numa in range(draw(st.integers(1, 2))):
        numa_name = '%s_N%d' % (name, numa)
        nodes.append(draw(_provider(numa_name, name,
                                    ('VCPU', 'MEMORY_MB'))))
        if draw(st.sampled_from((True, True, False))):
            nodes.append(draw(_provider(
                '%s_F' % numa_name, numa_name, ('FPGA',),
                [FPGA_TRAIT] if draw(st.booleans()) else [])))
    return nodes


@st.composite
def fleets(draw, max_hosts=3):
    """A fleet: 1 to ``max_hosts`` hosts, maybe a sharing disk pool in
    AGGA first, maybe a copy of the last host."""
    nodes = []
    if draw(st.booleans()):
        nodes.append(draw(_provider('POOL', None, ('DISK_GB',),
                                    (ct.SHARES,), ('AGGA',))))
    for number in range(draw(st.integers(1, max_hosts))):
        nodes += draw(host(number))
    if draw(st.booleans()):
        # A copy of the last host: alike trees (counted once, solver.fill).
        last = nodes[-1].name.split('_')[0]
        nodes += [node._replace(
            name='C' + node.name,
            parent=node.parent and 'C' + node.parent)
            for node in nodes if node.name.split('_')[0] == last]
    return nodes


def _amount(rc):
    return st.integers(1, 4)


@st.composite
def shapes(draw):
    """A query string of the kinds an operator configures."""
    vcpu = draw(_amount('VCPU'))
    mem = draw(_amount('MEMORY_MB'))
    disk = draw(_amount('DISK_GB'))
    choices = [
        'resources=VCPU:%d,MEMORY_MB:%d' % (vcpu, mem),
        'resources=VCPU:%d,MEMORY_MB:%d,DISK_GB:%d' % (vcpu, mem, disk),
        'resources=DISK_GB:%d' % disk,
        'resources=VCPU:%d&resources1=FPGA:1&required1=%s' % (
            vcpu, FPGA_TRAIT),
        'resources_N=VCPU:%d,MEMORY_MB:%d&resources_P=FPGA:1'
        '&same_subtree=_N,_P&group_policy=isolate' % (vcpu, mem),
        'resources1=VCPU:%d&resources2=VCPU:%d&group_policy=isolate' % (
            vcpu, draw(_amount('VCPU'))),
        'resources=VCPU:%d&member_of=$AGGA' % vcpu,
        'resources=MEMORY_MB:%d&root_required=%s' % (mem, GOLD),
        'resources=VCPU:%d,DISK_GB:%d&required=!%s' % (vcpu, disk, GOLD),
    ]
    return draw(st.sampled_from(choices))


def with_uuids(query_string, uuids):
    """``$AGGA`` -> the aggregate's uuid."""
    for name, value in uuids.items():
        query_string = query_string.replace('$' + name, value)
    return query_string


def claim_until_full(app, query_string, limit=1000):
    """Claim the first candidate of ``query_string`` again and again
    through the API: the list of the claims' allocations ({provider
    uuid: {class: amount}}), in order. Stops at an empty answer or a
    409; raises past ``limit`` claims."""
    claims = []
    while len(claims) < limit:
        status, text = concurrency.send(
            app, 'GET', '/allocation_candidates?%s&limit=1' % query_string)
        if status != 200:
            raise AssertionError('%s: %s %s' % (query_string, status, text))
        found = json.loads(text)['allocation_requests']
        if not found:
            return claims
        allocations = found[0]['allocations']
        status, text = concurrency.send(
            app, 'PUT', '/allocations/%s' % uuid.uuid4(), {
                'allocations': allocations, 'project_id': 'fill',
                'user_id': 'fill', 'consumer_generation': None,
                'consumer_type': 'INSTANCE'})
        if status == 409:
            return claims
        if status != 204:
            raise AssertionError('claim: %s %s' % (status, text))
        claims.append({rp_uuid: value['resources']
                       for rp_uuid, value in allocations.items()})
    raise AssertionError('more than %d claims' % limit)
