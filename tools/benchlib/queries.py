"""The candidates queries of the benchmarks, by shape.

flat: plain and limit=10 (a quarter of the providers match).
nested (over the nested shape's trees): the gate (isolate +
same_subtree, 2 per tree) and its limit=10; the same without
same_subtree under isolate and under none (8 per tree); two FPGA groups
with an unsuffixed FPGA (12 per tree: 3,000 at 250 trees); one
unsuffixed group spread over four providers of a tree (16 per tree:
4,000); wide (three groups, none) and its limit=10.
"""
from tools.benchlib import data

FLAT_QUERY = ('resources=VCPU:1,DISK_GB:10,MEMORY_MB:256'
              '&member_of=%s&required=HW_CPU_X86_AVX2' % data.AGG)
NESTED_QUERY = ('resources=DISK_GB:10'
                '&resources_COMPUTE=VCPU:2,MEMORY_MB:1024'
                '&required_COMPUTE=HW_NUMA_ROOT'
                '&resources_ACCEL=FPGA:1&required_ACCEL=CUSTOM_FPGA_A'
                '&resources_GPU=PGPU:1&required_GPU=CUSTOM_GPU_B'
                '&group_policy=isolate'
                '&same_subtree=_COMPUTE,_ACCEL,_GPU')
NESTED_WIDE_QUERY = ('resources_COMPUTE=VCPU:1'
                     '&resources_ACCEL=FPGA:1&resources_GPU=PGPU:1'
                     '&group_policy=none')
NESTED_ISOLATE_QUERY = NESTED_QUERY.replace(
    '&same_subtree=_COMPUTE,_ACCEL,_GPU', '')
NESTED_NONE_QUERY = NESTED_ISOLATE_QUERY.replace('group_policy=isolate',
                                                 'group_policy=none')
NESTED_FPGA_QUERY = ('resources=FPGA:1&resources_COMPUTE=VCPU:1'
                     '&resources_ACCEL1=FPGA:1&resources_ACCEL2=FPGA:1'
                     '&group_policy=none')
NESTED_SPREAD_QUERY = 'resources=VCPU:1,MEMORY_MB:1024,FPGA:1,PGPU:1'
QUERIES = {
    'flat': [('flat', FLAT_QUERY),
             ('flat limit=10', FLAT_QUERY + '&limit=10')],
    'nested': [('nested gate (isolate+subtree)', NESTED_QUERY),
               ('nested gate limit=10', NESTED_QUERY + '&limit=10'),
               ('nested isolate, no subtree', NESTED_ISOLATE_QUERY),
               ('nested none, no subtree', NESTED_NONE_QUERY),
               ('nested two FPGA groups', NESTED_FPGA_QUERY),
               ('nested unsuffixed spread', NESTED_SPREAD_QUERY),
               ('nested wide (4 combos/tree)', NESTED_WIDE_QUERY),
               ('nested wide limit=10', NESTED_WIDE_QUERY + '&limit=10')],
}
# The empty answers explain's figures add (and the non-empty ones above).
EXPLAIN_QUERIES = {
    'flat': [
        ('flat (non-empty)', FLAT_QUERY),
        ('flat empty: VCPU:64', 'resources=VCPU:64,MEMORY_MB:256'),
        ('flat empty: trait', 'resources=VCPU:1&required=HW_CPU_X86_SSE42'),
    ],
    'nested': [
        ('nested (non-empty)', NESTED_QUERY),
        ('nested empty: FPGA:3', NESTED_QUERY.replace('FPGA:1', 'FPGA:3')),
    ],
}
