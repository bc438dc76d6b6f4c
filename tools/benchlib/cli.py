"""The command lines of tools/bench, tools/profile and tools/compare:
one subcommand per scenario module (its docstring is the help, its
``add_arguments`` and ``run`` the rest)."""
import argparse


def add_command(commands, name, module, add=None, run=None):
    """A subcommand ``name`` from ``module``."""
    parser = commands.add_parser(
        name, help=module.__doc__.splitlines()[0], description=module.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    (add or module.add_arguments)(parser)
    parser.set_defaults(run=run or module.run)
    return parser


def parser(prog, doc, modules):
    """A parser whose subcommands are ``modules`` ({name: module})."""
    top = argparse.ArgumentParser(
        prog=prog, description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = top.add_subparsers(dest='command', required=True)
    for name, module in modules.items():
        add_command(commands, name, module)
    return top, commands


def main(top, argv=None):
    args = top.parse_args(argv)
    return args.run(args)
