"""The words of an explanation (solver.explain): step labels, the
one-line summary and a provider's failed check with its numbers. Pure.
"""
import collections

from placement.solver import explain as explain_mod

PASSED = explain_mod.PASSED

CROSS_LABELS = {
    'all_groups': 'trees where every group found a provider',
    'root_required': 'root_required',
    'combined': 'groups together within capacity',
    'one_per_tree': 'one provider per tree (microversion < 1.29)',
    'unsuffixed_traits': 'unsuffixed traits on the chosen providers',
    'isolate': 'group_policy=isolate',
    'same_subtree': 'same_subtree',
    'sharing': 'sharing providers through aggregates',
    'limit': 'cut by limit / max_allocation_candidates',
}


def _names(names):
    return ','.join(names)


def _aggs(entries):
    return '&'.join('member_of=' + ('in:' if len(e) > 1 else '')
                    + _names(e) for e in entries)


def label(step):
    """The name of a funnel row."""
    kind, subject = step.kind, step.subject
    if kind == 'considered':
        return 'providers considered'
    if kind == 'inventory':
        return 'has %s inventory' % subject
    if kind in explain_mod.model.RULES:
        return '%s %s:%d' % (kind, subject, step.amount)
    if kind == 'required':
        return 'required %s' % subject
    if kind == 'forbidden':
        return 'forbidden %s' % _names('!' + t for t in subject)
    if kind == 'any_of':
        return 'required in:%s' % _names(subject)
    if kind == 'member_of':
        return _aggs(subject)
    if kind == 'forbidden_aggregates':
        return 'member_of=!%s' % _names(subject)
    if kind == 'in_tree':
        return 'in_tree %s' % subject
    return CROSS_LABELS.get(kind, kind)


def _group_phrase(step, most_free):
    """What the trees removed by ``step`` lack, Kubernetes-fashion."""
    kind, subject = step.kind, step.subject
    if kind == 'inventory':
        return 'have no %s inventory' % subject
    if kind == 'capacity':
        text = 'have less than %d %s free' % (step.amount, subject)
        if most_free is not None:
            text += ' (most free: %s)' % format(most_free, ',')
        return text
    if kind == 'min_unit':
        return 'have a %s min_unit above %d' % (subject, step.amount)
    if kind == 'max_unit':
        return 'have a %s max_unit below %d' % (subject, step.amount)
    if kind == 'step_size':
        return 'have a %s step_size that does not divide %d' % (
            subject, step.amount)
    if kind == 'required':
        return 'lack %s' % subject
    if kind == 'forbidden':
        return 'have %s' % ' or '.join(subject)
    if kind == 'any_of':
        return 'lack all of %s' % ', '.join(subject)
    if kind == 'member_of':
        if len(subject) == 1 and len(subject[0]) == 1:
            return 'are not in aggregate %s' % subject[0][0]
        return 'are not in the aggregates of %s' % _aggs(subject)
    if kind == 'forbidden_aggregates':
        return 'are in aggregate %s' % ' or '.join(subject)
    if kind == 'in_tree':
        return 'are not in tree %s' % subject
    return 'fail %s' % label(step)


def _cross_phrase(kind, query):
    if kind == 'root_required':
        wanted = sorted(query.root_traits.required) + sorted(
            '!' + t for t in query.root_traits.forbidden)
        return 'have a root not matching root_required=%s' % _names(wanted)
    if kind == 'combined':
        return 'cannot serve all the groups together within capacity'
    if kind == 'one_per_tree':
        return 'need several providers of one tree (microversion < 1.29)'
    if kind == 'unsuffixed_traits':
        return ('have no providers for the unsuffixed group that hold '
                'its required traits between them')
    if kind == 'isolate':
        return 'cannot serve the groups from separate providers ' \
               '(group_policy=isolate)'
    if kind == 'same_subtree':
        return 'have no providers meeting same_subtree=%s' % ' '.join(
            _names(s) for s in query.same_subtrees)
    return 'fail %s' % CROSS_LABELS.get(kind, kind)


def reason_counts(explanation):
    """[(phrase, trees)] of the removed trees, most first, then in the
    order of the steps.
    """
    counts = collections.Counter(explanation.reasons.values())
    ranked = []
    for (position, at), count in counts.items():
        ranked.append((-count, _rank(explanation, position, at),
                       tree_reason(explanation, position, at), count))
    ranked.sort(key=lambda item: item[:2])
    return [(phrase, count) for _, _, phrase, count in ranked]


def reason_kinds(explanation):
    """{step kind: trees it removed}, e.g. {'inventory': 3, 'capacity':
    1}: the reasons of an explanation without their subjects, a small
    fixed set of names (the metrics' labels)."""
    kinds = collections.Counter()
    for position, at in explanation.reasons.values():
        if position is None:
            kinds[at] += 1
        else:
            kinds[explanation.funnels[position].steps[at].kind] += 1
    return dict(kinds)


def _rank(explanation, position, at):
    if position is None:
        kinds = [r.step.kind for r in explanation.cross]
        return (len(explanation.funnels), kinds.index(at))
    return (position, at)


def tree_reason(explanation, position, at):
    """The phrase of a removed tree's reason (group position, step)."""
    if position is None:
        return _cross_phrase(at, explanation.query)
    funnel = explanation.funnels[position]
    phrase = _group_phrase(funnel.steps[at], funnel.results[at].most_free)
    suffix = funnel.group.suffix
    return phrase + (' for group %s' % suffix if suffix else '')


_SINGULAR = {'have': 'has', 'lack': 'lacks', 'are': 'is', 'need': 'needs',
             'fail': 'fails'}


def singular(phrase):
    """The phrase of one tree ('1 lacks X' rather than '1 lack X')."""
    verb, _, rest = phrase.partition(' ')
    return '%s %s' % (_SINGULAR.get(verb, verb), rest)


def summary(explanation):
    """One line: the count and, per reason, how many trees it removed."""
    roots = len(explanation.roots)
    text = '%s candidate%s' % (format(explanation.count, ','),
                               '' if explanation.count == 1 else 's')
    if not roots:
        return text + ': there are no resource providers'
    reasons = reason_counts(explanation)
    parts = ['%s %s' % (format(count, ','),
                        singular(phrase) if count == 1 else phrase)
             for phrase, count in reasons]
    viable = roots - len(explanation.reasons)
    head = ': of %s root provider%s' % (format(roots, ','),
                                        '' if roots == 1 else 's')
    if viable:
        parts.insert(0, '%s can serve the request' % format(viable, ','))
    text += head + ', ' + ', '.join(parts)
    cut = explanation.total - explanation.count
    if cut > 0:
        text += '; %s more cut by limit %d' % (
            format(cut, ',') + ('+' if explanation.total >= (
                explain_mod.COUNT_BOUND) else ''), explanation.cap)
    return text


# --- one provider ------------------------------------------------------------

def provider_report(explanation, rp_id, raw=None):
    """What explains one provider (and, for a root, its tree), as plain
    data: {'groups': [...], 'tree': ... or None, 'candidates': n}.

    raw: {class: (total, reserved, allocation_ratio)} of the provider,
    for the numbers of a capacity check.
    """
    snapshot = explanation.snapshot
    provider = snapshot.providers[rp_id]
    groups = []
    for funnel in explanation.funnels:
        checks = []
        for track, fail in zip(funnel.tracks, funnel.fails[rp_id]):
            entry = {'resource_class': track}
            if fail == PASSED:
                entry.update(result='passes', text='can serve %s' % (
                    track or 'the group'))
            else:
                step = funnel.steps[fail]
                entry.update(result='fails', step=step.kind, text=check_text(
                    explanation, funnel, step, rp_id, raw))
            checks.append(entry)
        groups.append({'group': funnel.group.suffix, 'checks': checks})
    tree = None
    if provider.parent_id is None and rp_id in explanation.snapshot.anchors:
        reason = explanation.reasons.get(rp_id)
        tree = ({'result': 'serves', 'text': 'its tree can serve the '
                 'request'} if reason is None else
                {'result': 'removed', 'text': singular(tree_reason(
                    explanation, *reason))})
    appears = [c for c in explanation.candidates
               if rp_id in c.used_ids()]
    return {'uuid': provider.uuid, 'groups': groups, 'tree': tree,
            'candidates': len(appears)}


def check_text(explanation, funnel, step, rp_id, raw=None):
    """A provider's failed check, with the numbers."""
    snapshot = explanation.snapshot
    kind, subject = step.kind, step.subject
    if kind in explain_mod.RESOURCE_KINDS:
        return _resource_text(snapshot, step, rp_id, raw)
    traits = explanation.index.traits_of(rp_id)
    granular = funnel.group.is_granular
    if step.tree_level:
        return ('the providers that can serve the group hold no %s '
                'between them' % (subject if kind == 'required'
                                  else 'one of ' + ', '.join(subject)))
    if kind == 'required':
        return 'lacks %s (has: %s)' % (subject,
                                       ', '.join(sorted(traits)) or 'none')
    if kind == 'forbidden':
        return 'has %s' % ', '.join(sorted(set(subject) & traits))
    if kind == 'any_of':
        return 'has none of %s' % ', '.join(subject)
    if kind == 'member_of':
        return '%s in the aggregates of %s' % (
            'it is not' if granular else 'neither it nor its root is',
            _aggs(subject))
    if kind == 'forbidden_aggregates':
        return '%s is in aggregate %s' % (
            'it' if granular else 'it or its root', ' or '.join(subject))
    if kind == 'in_tree':
        root = snapshot.providers[snapshot.providers[rp_id].root_id]
        return 'in the tree of %s, not of %s' % (root.uuid, subject)
    return label(step)


def _resource_text(snapshot, step, rp_id, raw):
    rc, amount = step.subject, step.amount
    inv = snapshot.inventories.get(rp_id, {}).get(rc)
    if step.kind == 'inventory':
        return 'no %s inventory' % rc
    if step.kind == 'capacity':
        numbers = (raw or {}).get(rc)
        if numbers:
            total, reserved, ratio = numbers
            how = '(%d - %d) x %s - %d used' % (total, reserved, ratio,
                                                inv.used)
        else:
            how = '%d - %d used' % (inv.capacity, inv.used)
        return '%s: requested %d, free %d = %s' % (rc, amount, inv.free, how)
    value = getattr(inv, step.kind)
    words = {'min_unit': 'below min_unit', 'max_unit': 'above max_unit',
             'step_size': 'not a multiple of step_size'}[step.kind]
    return '%s: requested %d, %s %d' % (rc, amount, words, value)
