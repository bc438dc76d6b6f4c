"""db.packed on each backend: text of any character the schema stores
comes back as written, beside ints and NULLs (issue 36: on MariaDB the
rows were once JSON text quoted by hand, so a name could forge a row).
"""
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.db import packed
from placement.tests.functional.db import base
from placement.testing import app as app_fixture

RP = models.resource_providers

# Names that break JSON text made by hand, and ones that look like JSON.
NAMES = [
    'a",["',
    'b"],7,8,9],["ffffffff-0000-0000-0000-000000000000","fake',
    'back\\slash \\" \\\\',
    'ctl\x01\x02\x1f\ttab\nline',
    '%s %% %(name)s {0}',
    'null', '[1, 2]', '"quoted"',
    'caf\u00e9 \u2603 \u65e5\u672c',
    '\u00e9' * 200,
]


class _PackedValues:

    def setUp(self):
        super().setUp()
        self.db = self.new_database()
        app_fixture.create_schema(self.db)

    def _rows(self, stmt, types, order_by=None):
        with db_api.reader(self.db, snapshot=False) as conn:
            plain = [tuple(row) for row in conn.execute(stmt)]
            found = [tuple(row) for row in packed.fetch_rows(
                conn, stmt, {}, types, order_by=order_by)]
        return plain, found

    def test_any_name_comes_back_as_written(self):
        with db_api.transaction(self.db) as conn:
            for index, name in enumerate(NAMES):
                conn.execute(RP.insert().values(
                    uuid='v%d' % index, name=name,
                    generation=index * 1000,
                    parent_provider_id=None))
        stmt = (sa.select(RP.c.name, RP.c.generation, RP.c.uuid,
                          RP.c.parent_provider_id, RP.c.id)
                .order_by(RP.c.id))
        types = (packed.TEXT, packed.INT, packed.TEXT, packed.INT,
                 packed.INT)
        plain, found = self._rows(stmt, types, order_by=4)
        self.assertEqual(NAMES, [row[0] for row in found])
        self.assertEqual(plain, found)
        for row in found:
            self.assertIsInstance(row[1], int)
            self.assertIsNone(row[3])

    def test_a_union_of_names_comes_back_as_written(self):
        with db_api.transaction(self.db) as conn:
            for index, name in enumerate(NAMES):
                conn.execute(RP.insert().values(
                    uuid='w%d' % index, name=name, generation=0))
        stmt = sa.union_all(
            sa.select(RP.c.name, RP.c.id),
            sa.select(sa.cast(sa.null(), sa.String), RP.c.generation))
        plain, found = self._rows(stmt, (packed.TEXT, packed.INT))
        self.assertEqual(sorted(plain, key=repr), sorted(found, key=repr))

    def test_unpack_keeps_backslashes_and_checks_the_shape(self):
        text = '["a\\\\b",1],["\\"",null]'
        self.assertEqual([['a\\b', 1], ['"', None]],
                         packed.unpack(2, text, 2))
        # Cut short, one row too few or too narrow: read again.
        self.assertIsNone(packed.unpack(2, text[:-3], 2))
        self.assertIsNone(packed.unpack(3, text, 2))
        self.assertIsNone(packed.unpack(2, text, 3))
        self.assertEqual([], packed.unpack(0, None, 2))


globals().update(base.per_backend(_PackedValues))
