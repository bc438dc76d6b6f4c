"""JSON values encoded once and filled in many times.

A large candidates answer repeats a few forms thousands of times: the
candidates alike up to their providers (model.Alike), the providers
alike in resources and traits. Such a form is encoded by orjson once,
with a slot where each uuid goes (``slot(n)``, a string orjson writes as
"\\u0001<n>\\u0001": no class, suffix, trait or uuid holds a control
character); each copy is then that text with its uuids put in, as an
orjson.Fragment. A uuid needs no escaping in JSON. A value that may need
it (a name, a number, null) goes in a ``value_slot(n)``, which stands
for a whole JSON value, and is filled with that value's JSON text.

Encoding a form costs a few plain renderings (its value, the encoder, a
split): the first PLAIN_COPIES copies of a form are rendered as values,
so that an answer whose forms repeat little (a small limit) pays
nothing for this. Forms keeps that count and the texts of one answer.
"""
import re

import orjson

PLAIN_COPIES = 8
_SLOT = '\x01%d\x01'
_VALUE_SLOT = '\x02%d\x02'
# A slot inside a string, or a value slot with its quotes.
_SLOTS = re.compile(r'\\u0001(\d+)\\u0001|"\\u0002(\d+)\\u0002"')
_MARKERS = re.compile('[\x01\x02]')
# What a slot's text must not hold: it would need escaping.
_ESCAPED = re.compile('[\x00-\x1f"\\\\]')


def slot(number: int) -> str:
    """The placeholder of slot ``number`` in a value given to Text: text
    that needs no escaping in a JSON string (a uuid) goes there."""
    return _SLOT % number


def value_slot(number: int) -> str:
    """The placeholder of a whole JSON value (not an object's key), filled
    with that value's JSON text (orjson.dumps(value).decode())."""
    return _VALUE_SLOT % number


def has_markers(text: str) -> bool:
    """Whether ``text``, meant as a constant of a Text's value, holds a
    character of the slots' markers (then it cannot be one)."""
    return _MARKERS.search(text) is not None


def plain(text: str) -> bool:
    """Whether ``text`` can go in a slot as it is (needs no escaping)."""
    return _ESCAPED.search(text) is None


class Text:
    """``value`` (plain JSON values and slots) encoded: ``template``, its
    JSON text with a ``%s`` where each slot was, and ``order``, the slot
    numbers in the order they appear in the text."""

    __slots__ = ('template', 'order')

    def __init__(self, value):
        pieces = _SLOTS.split(orjson.dumps(value).decode())
        self.template = '%s'.join(piece.replace('%', '%%')
                                  for piece in pieces[::3])
        self.order = tuple(int(number if number is not None else whole)
                           for number, whole in zip(pieces[1::3],
                                                    pieces[2::3]))

    def fill(self, values):
        """orjson.Fragment of the value with ``values`` (a sequence, in
        ``order``) in its slots."""
        return orjson.Fragment(self.template % tuple(values))


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
