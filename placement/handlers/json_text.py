"""JSON values encoded once and filled in many times.

A large candidates answer repeats a few forms thousands of times: the
candidates alike up to their providers (model.Alike), the providers
alike in resources and traits. Such a form is encoded by orjson once,
with a slot where each uuid goes (``slot(n)``, a string orjson writes as
"\\u0001<n>\\u0001": no class, suffix, trait or uuid holds a control
character); each copy is then that text with its uuids put in, as an
orjson.Fragment. Slots are filled by number, not by where they fall in
the text: the keys of a value may be reordered freely. Every fill is
checked where it is made: a slot's text must need no escaping in a JSON
string (``plain``; a uuid needs none), else it goes in as orjson
escapes it; a ``value_slot(n)``, a whole JSON value (a name, a number,
null), is filled with that value as orjson encodes it; an
``int_slot(n)`` with an int written by %d (a JSON number, or TypeError).

Encoding a form costs a few plain renderings (its value, the encoder, a
split): the first PLAIN_COPIES copies of a form are rendered as values,
so that an answer whose forms repeat little (a small limit) pays
nothing for this. Forms keeps that count and the texts of one answer.
"""
import operator
import re

import orjson

PLAIN_COPIES = 8
_SLOT = '\x01%d\x01'
_VALUE_SLOT = '\x02%d\x02'
_INT_SLOT = '\x03%d\x03'
# A slot inside a string, a value slot or an int slot with its quotes.
_SLOTS = re.compile(r'\\u0001(\d+)\\u0001|"\\u0002(\d+)\\u0002"'
                    r'|"\\u0003(\d+)\\u0003"')
_MARKERS = re.compile('[\x01-\x03]')
_FRAGMENT = orjson.Fragment
_DUMPS = orjson.dumps
# The kinds of slots, and what each puts in the template.
_STRING, _VALUE, _INT = 0, 1, 2
_FORMATS = ('%s', '%s', '%d')


def slot(number: int) -> str:
    """The placeholder of slot ``number`` in a string of a value given to
    Text: filled with a string, as it is when it needs no escaping in
    JSON (a uuid), else escaped by orjson."""
    return _SLOT % number


def value_slot(number: int) -> str:
    """The placeholder of a whole JSON value (not an object's key), filled
    with a value that orjson encodes there."""
    return _VALUE_SLOT % number


def int_slot(number: int) -> str:
    """The placeholder of a whole JSON value filled with an int, by
    ``%d``: its text is a JSON number, never anything to escape (a value
    that is no number is refused: TypeError)."""
    return _INT_SLOT % number


def has_markers(text: str) -> bool:
    """Whether ``text``, meant as a constant of a Text's value, holds a
    character of the slots' markers (then it cannot be one)."""
    return _MARKERS.search(text) is not None


def plain(text: str) -> bool:
    """Whether ``text`` can go in a slot as it is: orjson writes it
    unchanged (between its quotes), escaping nothing. Faster than any
    scan in Python's own C (0.15 us for 108 characters, where a
    regular expression or isprintable took 0.3 to 0.5)."""
    size = len(text) if text.isascii() else len(text.encode())
    return len(_DUMPS(text)) == size + 2


def _escaped(text):
    """``text`` as it goes inside a JSON string, escaped by orjson."""
    return orjson.dumps(text).decode()[1:-1]


def _picker(order):
    """A function: a sequence indexed by slot number -> the tuple of the
    slots in ``order`` (itemgetter, in C)."""
    if not order:
        return lambda values: ()
    if len(order) == 1:
        number = order[0]
        return lambda values: (values[number],)
    return operator.itemgetter(*order)


class Text:
    """``value`` (plain JSON values and slots) encoded: ``template``, its
    JSON text with a ``%s`` (``%d``) where each slot was, and ``order``,
    the slot numbers in the order they appear in the text. Filled by
    ``fill(values)`` only (see _filler), which checks what goes in."""

    __slots__ = ('template', 'order', '_pick', '_pick_strings',
                 '_strings', '_values', '_dense', '_plain_seen', 'fill')

    def __init__(self, value, plain_seen=None):
        """``plain_seen``: a set shared by the texts of one answer, of
        the strings a fill of theirs has found plain (see _filler)."""
        self._plain_seen = set() if plain_seen is None else plain_seen
        pieces = _SLOTS.split(orjson.dumps(value).decode())
        found = [next((kind, int(number)) for kind, number
                      in enumerate(pieces[at + 1:at + 4])
                      if number is not None)
                 for at in range(0, len(pieces) - 1, 4)]
        texts = [piece.replace('%', '%%') for piece in pieces[::4]]
        self.template = texts[0] + ''.join(
            _FORMATS[kind] + text for (kind, _), text in zip(found,
                                                             texts[1:]))
        self.order = tuple(number for _, number in found)
        self._pick = _picker(self.order)
        # Where in the text the string slots and value slots fall.
        self._strings = tuple(at for at, (kind, _) in enumerate(found)
                              if kind == _STRING)
        self._values = tuple(at for at, (kind, _) in enumerate(found)
                             if kind == _VALUE)
        # The number of slots when they are string slots numbered 0, 1,
        # ... (the common case), else -1.
        numbers = set(self.order)
        self._dense = len(numbers) if numbers == set(range(len(numbers))) \
            and len(self._strings) == len(found) else -1
        # None when every slot is a string slot (the common case).
        self._pick_strings = None if len(self._strings) == len(found) \
            else _picker(tuple(number for kind, number in found
                               if kind == _STRING))
        self.fill = self._filler()

    def _filler(self):
        """``fill(values)``: orjson.Fragment of the value with
        ``values[n]`` in slot ``n`` (``values`` a sequence indexed by slot
        number; the numbers the text has no slot of are not read): a
        slot's string as it is when plain, else escaped by orjson; a
        value slot's value encoded by orjson; an int slot's int by %d.
        A function of its own, its constants bound once: a call costs
        less than a method reading them from self."""
        pick, pick_strings, dense = (self._pick, self._pick_strings,
                                     self._dense)
        template, checked = self.template, self._checked
        if self._values:
            return lambda values: checked(list(pick(values)))
        dumps, fragment = _DUMPS, _FRAGMENT
        # Strings found plain by an earlier fill of this answer's texts
        # (a large answer fills the same uuids thousands of times): one
        # set lookup in C checks those; the others are checked below and
        # join the set. Only where every slot is a string slot.
        all_seen = (self._plain_seen.issuperset if pick_strings is None
                    else lambda picked: False)
        remember = self._plain_seen.update

        def fill(values):
            picked = pick(values)
            if all_seen(picked):
                return fragment(template % picked)
            # plain(), inline; each value once when ``values`` are the
            # string slots 0, 1, ... exactly.
            strings = (values if len(values) == dense
                       else picked if pick_strings is None
                       else pick_strings(values))
            text = ''.join(strings)
            if len(dumps(text)) == 2 + (
                    len(text) if text.isascii() else len(text.encode())):
                if pick_strings is None:
                    remember(picked)
                return fragment(template % picked)
            return checked(list(picked))
        return fill

    def _checked(self, picked):
        for at in self._values:
            picked[at] = orjson.dumps(picked[at]).decode()
        if not plain(''.join([picked[at] for at in self._strings])):
            for at in self._strings:
                picked[at] = _escaped(picked[at])
        return _FRAGMENT(self.template % tuple(picked))


class Forms(dict):
    """The texts of one answer's forms, by a key naming the form::

        text = forms.get(key) or forms.after_copy(key, encode, *args)

    is None for each of the form's first PLAIN_COPIES copies (render
    those as values), then its text, made once by ``encode(*args)``
    (a Text or anything that fills one) and kept under ``key``."""

    __slots__ = ('_copies',)

    def __init__(self):
        super().__init__()
        self._copies = {}

    def after_copy(self, key, encode, *args):
        copies = self._copies.get(key, 0)
        if copies < PLAIN_COPIES:
            self._copies[key] = copies + 1
            return None
        text = self[key] = encode(*args)
        return text
