"""The alembic environment: run the revisions on the caller's connection.

``placement.db.migration`` is the only caller. It puts an open Connection
in ``config.attributes['connection']``; there is no ini file and no URL
here. Each revision runs in its own transaction, as the deployed service
does, so that a failing data check leaves the earlier revisions applied.
"""
from alembic import context


def _run():
    connection = context.config.attributes['connection']
    context.configure(connection=connection, transaction_per_migration=True,
                      render_as_batch=connection.dialect.name == 'sqlite')
    with context.begin_transaction():
        context.run_migrations()


_run()
