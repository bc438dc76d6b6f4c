"""Write the OpenAPI document: ``python -m placement.openapi``.

With no argument it rewrites the published file (PUBLISHED, served
with the API reference); ``--output -`` prints it; ``--version 1.N``
writes the projection onto one microversion instead.
"""
import argparse
import os
import sys

from placement.openapi import builder
from placement.openapi import document


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m placement.openapi',
                                     description=__doc__.splitlines()[0])
    parser.add_argument('--output', default=document.PUBLISHED,
                        help='the file to write, "-" for stdout '
                             '(default: %(default)s)')
    parser.add_argument('--version', help='one microversion, e.g. 1.39')
    args = parser.parse_args(argv)
    doc = builder.build()
    if args.version:
        doc = document.at_version(doc, args.version)
    text = document.dumps(doc)
    if args.output == '-':
        sys.stdout.write(text)
        return 0
    with open(args.output, 'w', encoding='utf-8') as out:
        out.write(text)
    print('wrote %s' % os.path.relpath(args.output), file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
